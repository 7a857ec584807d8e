package dev.loomlab.observability;

import dev.loomlab.execution.Mode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;

/**
 * The per-workload timers: {@code loomlab.workload} tagged {@code workload} and {@code mode}, so
 * {@code /q/metrics} shows each workload's own time beside the HTTP timings.
 */
@ApplicationScoped
public class WorkloadMetrics {

  public static final String WORKLOAD_TIMER = "loomlab.workload";

  private final MeterRegistry registry;

  WorkloadMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  /** One timer per mode for {@code workload}, created once (callers keep the map). */
  public Map<Mode, Timer> timers(String workload) {
    Map<Mode, Timer> timers = new EnumMap<>(Mode.class);
    for (Mode mode : Mode.values()) {
      timers.put(
          mode,
          Timer.builder(WORKLOAD_TIMER)
              .description("Time spent in the workload's business code")
              .tag("workload", workload)
              .tag("mode", mode.id())
              .register(registry));
    }
    return Collections.unmodifiableMap(timers);
  }

  public MeterRegistry registry() {
    return registry;
  }
}
