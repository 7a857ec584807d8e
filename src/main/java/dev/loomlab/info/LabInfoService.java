package dev.loomlab.info;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.loomlab.execution.LoopCarriers;
import dev.loomlab.execution.Workload;
import dev.loomlab.observability.WorkerPoolMetricsBinder;
import dev.loomlab.settings.PublishedSettings;
import io.quarkus.runtime.ExecutorRecorder;
import io.quarkus.runtime.ImageMode;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.lang.management.ManagementFactory;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;
import org.jboss.threads.EnhancedQueueExecutor;

/**
 * Collects the pools and bounds in force, and logs them once at start-up: the process's own (the
 * worker pool, HTTP limits, event loops, CPUs, GC threads, carriers), then what each feature
 * publishes of its own ({@link PublishedSettings}, in their order).
 */
@ApplicationScoped
public class LabInfoService {

  private static final Logger LOG = Logger.getLogger(LabInfoService.class);

  private final Config config;
  private final Vertx vertx;
  private final List<PublishedSettings> features;

  LabInfoService(Config config, Vertx vertx, Instance<PublishedSettings> features) {
    this.config = config;
    this.vertx = vertx;
    this.features =
        features.stream().sorted(Comparator.comparingInt(PublishedSettings::order)).toList();
  }

  void onStart(@Observes StartupEvent event) {
    LabInfo info = info();
    LOG.infof(
        "loom-lab on JDK %s (%s), Quarkus %s, %d CPUs, %s; pools and bounds: %s",
        info.jdk(), info.vm(), info.quarkus(), info.cpus(), info.imageKind(), info.pools());
  }

  public LabInfo info() {
    int cpus = Runtime.getRuntime().availableProcessors();
    Map<String, Object> pools = new LinkedHashMap<>();
    // Read from the live pool; unset, Quarkus sizes it max(8 x CPUs, 200).
    pools.put(
        "worker.max-threads",
        WorkerPoolMetricsBinder.workerPool()
            .map(EnhancedQueueExecutor::getMaximumPoolSize)
            .orElseGet(ExecutorRecorder::calculateMaxThreads));
    features.forEach(feature -> feature.publish(pools));
    pools.put("http.max-body-bytes", bytes("quarkus.http.limits.max-body-size"));
    pools.put("http.max-connections", intValue("quarkus.http.limits.max-connections").orElse(null));
    pools.put("http.idle-timeout", config.getValue("quarkus.http.idle-timeout", String.class));
    // The event loops that serve HTTP (the reactive mode's threads, the virtual-loop mode's
    // carriers), beside the Vert.x pool they come from, read from the live pool.
    int vertxLoops = vertxEventLoops();
    pools.put("reactive.event-loops", httpEventLoops(vertxLoops));
    pools.put("vertx.event-loops", vertxLoops);
    // The event loops' I/O: Java's NIO, or Netty's epoll where a column prefers the native
    // transport (quarkus.vertx.prefer-native-transport) and the platform has it.
    pools.put("reactive.transport", vertx.isNativeTransportEnabled() ? "epoll" : "nio");
    // The cores the JVM sees (availableProcessors: a CPU set or a container's limit).
    pools.put("cpus", cpus);
    // The GC's threads, sized by HotSpot from the same processor count (absent in a native image).
    pools.put("gc.parallel-threads", vmOption("ParallelGCThreads"));
    pools.put("gc.concurrent-threads", vmOption("ConcGCThreads"));
    pools.put("jdk.feature", Runtime.version().feature());
    pools.put(
        "virtual.carriers",
        intValue(
                "jdk.virtualThreadScheduler.parallelism",
                System.getProperty("jdk.virtualThreadScheduler.parallelism"))
            .orElse(cpus));
    // The virtual-loop mode's carriers are the event loops themselves (LoopCarriers); where the JVM
    // does not let it give a virtual thread a scheduler, the mode answers 501 and says why.
    String loopCarriers = LoopCarriers.unavailable();
    pools.put(
        "virtual-loop.carriers",
        loopCarriers == null ? pools.get("reactive.event-loops") : "unavailable: " + loopCarriers);
    return new LabInfo(
        Runtime.version().toString(),
        System.getProperty("java.vm.name", "?"),
        quarkusVersion(),
        cpus,
        Runtime.getRuntime().maxMemory(),
        ImageMode.current().isNativeImage() ? "native" : "jvm",
        pools,
        Workload.matrix());
  }

  /**
   * The Vert.x pool's event loops (quarkus.vertx.event-loops-pool-size; unset, Quarkus sizes it one
   * per CPU and at least two, not two per CPU as Vert.x alone would).
   */
  private int vertxEventLoops() {
    int loops = 0;
    for (var ignored : ((VertxInternal) vertx).getEventLoopGroup()) {
      loops++;
    }
    return loops;
  }

  /**
   * Quarkus starts one HTTP server per event loop of the pool, at most quarkus.http.io-threads, and
   * at most two in dev and test mode: each accepted connection goes to the next server's loop.
   */
  private int httpEventLoops(int vertxLoops) {
    Optional<Integer> ioThreads = intValue("quarkus.http.io-threads");
    if (ioThreads.isPresent()) {
      return Math.min(ioThreads.get(), vertxLoops);
    }
    return LaunchMode.current().isDevOrTest() ? Math.min(2, vertxLoops) : vertxLoops;
  }

  private static Integer vmOption(String name) {
    try {
      HotSpotDiagnosticMXBean hotspot =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      return hotspot == null ? null : Integer.valueOf(hotspot.getVMOption(name).getValue());
    } catch (RuntimeException e) {
      return null; // not a HotSpot JVM, or no such option
    }
  }

  private long bytes(String key) {
    return config.getValue(key, MemorySize.class).asLongValue();
  }

  private Optional<Integer> intValue(String key) {
    return config.getOptionalValue(key, Integer.class);
  }

  private static Optional<Integer> intValue(String key, String raw) {
    try {
      return raw == null ? Optional.empty() : Optional.of(Integer.parseInt(raw.trim()));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  private static String quarkusVersion() {
    String v = io.quarkus.runtime.Quarkus.class.getPackage().getImplementationVersion();
    return v == null ? "unknown" : v;
  }
}
