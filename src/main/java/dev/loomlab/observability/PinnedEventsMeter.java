package dev.loomlab.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import jdk.jfr.consumer.RecordingStream;
import org.jboss.logging.Logger;

/**
 * Counts every {@code jdk.VirtualThreadPinned} event, however short, as {@code
 * loomlab_virtual_pinned_events_total}. It stands beside micrometer-java21's {@code
 * jvm_threads_virtual_pinned_seconds}, which only records pins longer than 20 ms. JFR delivers
 * events in batches, so the counter trails by about a second.
 */
@Startup
@ApplicationScoped
public class PinnedEventsMeter {

  private static final Logger LOG = Logger.getLogger(PinnedEventsMeter.class);

  private final RecordingStream stream;

  PinnedEventsMeter(MeterRegistry registry) {
    Counter pinned =
        Counter.builder("loomlab.virtual.pinned.events")
            .description(
                "Virtual threads pinned to their carrier while blocking (any duration, from JFR)")
            .register(registry);
    RecordingStream s = null;
    try {
      s = new RecordingStream();
      s.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
      s.onEvent("jdk.VirtualThreadPinned", e -> pinned.increment());
      s.startAsync();
    } catch (RuntimeException | Error e) {
      // JFR can be absent (a native image built without it): no figure rather than a zero.
      LOG.warnf("JFR unavailable, loomlab_virtual_pinned_events_total stays empty: %s", e);
      registry.remove(pinned);
      s = null;
    }
    this.stream = s;
  }

  void stop(@Observes ShutdownEvent event) {
    if (stream != null) {
      stream.close();
    }
  }
}
