package dev.loomlab.observability;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import jakarta.inject.Singleton;

/** Process RSS ({@code process_resident_memory_bytes}), which Micrometer's binders lack. */
@Singleton
public class ProcessMetricsBinder implements MeterBinder {

  @Override
  public void bindTo(MeterRegistry registry) {
    if (ProcessMemory.rssBytes() < 0) {
      return; // not Linux: say nothing rather than publish a wrong figure
    }
    Gauge.builder("process.resident.memory", ProcessMemory::rssBytes)
        .description("Resident set size of the process, read from /proc/self/status")
        .baseUnit("bytes")
        .register(registry);
  }
}
