package dev.loomlab.observability;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.ShutdownEvent;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordedFrame;
import jdk.jfr.consumer.RecordedStackTrace;
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
 *
 * <p>Where the pins come from: {@code loomlab_virtual_pinned_site_events_total{site}} counts them
 * again by the first frame of the event's stack outside the JDK (the code that blocked while
 * pinned: the lab's own, a driver's, a library's), at most {@link #MAX_SITES} sites, then {@code
 * other}.
 */
@ApplicationScoped
public class PinnedEventsMeter {

  private static final Logger LOG = Logger.getLogger(PinnedEventsMeter.class);

  /** Distinct sites counted apart: a bound on the breakdown's series. */
  static final int MAX_SITES = 16;

  private static final String OTHER = "other";
  private static final String[] JDK_PACKAGES = {"java.", "javax.", "jdk.", "sun.", "com.sun."};

  private final MeterRegistry registry;
  private final Set<String> sites = ConcurrentHashMap.newKeySet();
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
      s.onEvent(
          "jdk.VirtualThreadPinned",
          e -> {
            pinned.increment();
            bySite(site(e)).increment();
          });
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

  private Counter bySite(String site) {
    String tag = sites.contains(site) || sites.size() < MAX_SITES && sites.add(site) ? site : OTHER;
    return Counter.builder("loomlab.virtual.pinned.site.events")
        .description("Pinned virtual threads by the first frame outside the JDK (from JFR)")
        .tag("site", tag)
        .register(registry);
  }

  /** The first frame outside the JDK, as {@code Class.method}; {@code unknown} without a stack. */
  static String site(RecordedEvent event) {
    RecordedStackTrace trace = event.getStackTrace();
    if (trace == null) {
      return "unknown";
    }
    for (RecordedFrame frame : trace.getFrames()) {
      if (!frame.isJavaFrame() || frame.getMethod() == null) {
        continue;
      }
      String type = frame.getMethod().getType().getName();
      boolean jdk = false;
      for (String p : JDK_PACKAGES) {
        jdk |= type.startsWith(p);
      }
      if (!jdk) {
        return type + "." + frame.getMethod().getName();
      }
    }
    return "jdk";
  }

  synchronized void stop(@Observes ShutdownEvent event) {
    stopped = true;
    if (stream != null) {
      stream.close();
    }
  }
}
