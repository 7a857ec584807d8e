package dev.loomlab.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
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
 *
 * <p>Starting JFR costs a few hundred milliseconds of class loading, so the stream starts on a
 * thread of its own beside the rest of start-up instead of delaying the first request. The counter
 * is registered once the stream runs: until then (and where JFR is absent, e.g. a native image
 * built without it) the metric is missing rather than a misleading zero.
 */
@ApplicationScoped
public class PinnedEventsMeter {

  private static final Logger LOG = Logger.getLogger(PinnedEventsMeter.class);

  private final MeterRegistry registry;
  private volatile RecordingStream stream;
  private volatile boolean stopped;

  PinnedEventsMeter(MeterRegistry registry) {
    this.registry = registry;
  }

  void start(@Observes StartupEvent event) {
    Thread.ofPlatform().daemon().name("jfr-pinned-events").start(this::open);
  }

  private void open() {
    try {
      RecordingStream s = new RecordingStream();
      s.enable("jdk.VirtualThreadPinned").withThreshold(Duration.ZERO).withStackTrace();
      Counter pinned =
          Counter.builder("loomlab.virtual.pinned.events")
              .description(
                  "Virtual threads pinned to their carrier while blocking (any duration, from JFR)")
              .register(registry);
      s.onEvent("jdk.VirtualThreadPinned", e -> pinned.increment());
      synchronized (this) {
        if (stopped) {
          s.close();
          return;
        }
        s.startAsync();
        stream = s;
      }
    } catch (RuntimeException | Error e) {
      LOG.warnf("JFR unavailable, loomlab_virtual_pinned_events_total stays absent: %s", e);
    }
  }

  synchronized void stop(@Observes ShutdownEvent event) {
    stopped = true;
    if (stream != null) {
      stream.close();
    }
  }
}
