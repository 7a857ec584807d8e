package dev.loomlab.info;

import com.sun.management.HotSpotDiagnosticMXBean;
import dev.loomlab.database.DbConfig;
import dev.loomlab.database.ReactiveConfig;
import dev.loomlab.database.ReactiveDatabase;
import dev.loomlab.execution.ExecutionConfig;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.execution.Workload;
import dev.loomlab.execution.WorkloadSwitch;
import dev.loomlab.ingest.IngestConfig;
import dev.loomlab.input.BodyAdmission;
import dev.loomlab.input.InputConfig;
import dev.loomlab.mixed.CpuWork;
import dev.loomlab.mixed.MixedConfig;
import dev.loomlab.observability.WorkerPoolMetricsBinder;
import dev.loomlab.product.ProductConfig;
import dev.loomlab.sleep.SleepConfig;
import dev.loomlab.tasks.TasksConfig;
import dev.loomlab.tasks.TasksService;
import io.quarkus.runtime.ExecutorRecorder;
import io.quarkus.runtime.ImageMode;
import io.quarkus.runtime.StartupEvent;
import io.quarkus.runtime.configuration.MemorySize;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;
import org.jboss.threads.EnhancedQueueExecutor;

/** Collects the pools and bounds in force, and logs them once at start-up. */
@ApplicationScoped
public class LabInfoService {

  private static final Logger LOG = Logger.getLogger(LabInfoService.class);

  private final Config config;
  private final SleepConfig sleep;
  private final TasksConfig tasks;
  private final ExecutionConfig execution;
  private final ProductConfig product;
  private final TasksService tasksService;
  private final WaitBudgets budgets;
  private final IngestConfig ingest;
  private final ReactiveDatabase reactiveDb;
  private final ReactiveConfig reactive;
  private final MixedConfig mixed;
  private final CpuWork cpuWork;
  private final DbConfig db;
  private final InputConfig input;
  private final BodyAdmission bodies;
  private final WorkloadSwitch workloads;

  LabInfoService(
      Config config,
      SleepConfig sleep,
      TasksConfig tasks,
      ExecutionConfig execution,
      ProductConfig product,
      TasksService tasksService,
      WaitBudgets budgets,
      IngestConfig ingest,
      ReactiveDatabase reactiveDb,
      ReactiveConfig reactive,
      MixedConfig mixed,
      CpuWork cpuWork,
      DbConfig db,
      InputConfig input,
      BodyAdmission bodies,
      WorkloadSwitch workloads) {
    this.config = config;
    this.sleep = sleep;
    this.tasks = tasks;
    this.execution = execution;
    this.product = product;
    this.tasksService = tasksService;
    this.budgets = budgets;
    this.ingest = ingest;
    this.reactiveDb = reactiveDb;
    this.reactive = reactive;
    this.mixed = mixed;
    this.cpuWork = cpuWork;
    this.db = db;
    this.input = input;
    this.bodies = bodies;
    this.workloads = workloads;
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
    // One request's budget for waiting in every queue (thread, permit, bulkhead) before a 503.
    pools.put("execution.max-wait-ms", budgets.maxMillis());
    // false: a wait for a thread alone is never refused (the seeds' unbounded queue).
    pools.put("execution.thread-wait-bounded", budgets.threadWaitBounded());
    pools.put("tasks.worker-pool-size", tasks.workerPoolSize());
    pools.put("tasks.max-count-worker", tasks.maxCountWorker());
    pools.put("tasks.max-count-virtual", tasks.maxCountVirtual());
    // What this JVM's heap admits, whatever max-count says (loomlab.tasks.*-task-bytes).
    pools.put("tasks.heap-admits-worker", tasksService.admissible(Mode.WORKER));
    pools.put("tasks.heap-admits-virtual", tasksService.admissible(Mode.VIRTUAL));
    pools.put("sleep.max-ms", sleep.maxMs());
    pools.put("fan-out.worker-threads", execution.fanOut().workerThreads());
    pools.put("fan-out.worker-queue", execution.fanOut().workerQueue());
    Map<String, List<Long>> latency = new LinkedHashMap<>();
    latency.put("catalog", range(product.catalog()));
    latency.put("stock", range(product.stock()));
    latency.put("recommendations", range(product.recommendations()));
    latency.put("prices", range(product.prices()));
    pools.put("product.latency-ms", latency);
    pools.put("product.latency-in", product.catalog().latencyIn().name());
    pools.put("product.timeout-ms", product.timeout().toMillis());
    pools.put("ingest.max-chunk", ingest.maxChunk());
    pools.put("ingest.jdbc-batch-size", ingest.jdbcBatchSize());
    pools.put("ingest.simulated-round-trip-ms", ingest.simulatedRoundTrip().toMillis());
    pools.put("ingest.conflict-retries", ingest.conflictRetries());
    pools.put("ingest.grpc.max-message-bytes", ingest.grpc().maxMessageSize().asLongValue());
    pools.put("datasource.max-size", intValue("quarkus.datasource.jdbc.max-size").orElse(20));
    pools.put("db.statement-timeout-ms", db.statementTimeout().toMillis());
    pools.put("db.lock-timeout-ms", db.lockTimeout().toMillis());
    pools.put("http.max-body-bytes", bytes("quarkus.http.limits.max-body-size"));
    pools.put("http.max-connections", intValue("quarkus.http.limits.max-connections").orElse(null));
    pools.put("http.idle-timeout", config.getValue("quarkus.http.idle-timeout", String.class));
    pools.put("input.max-array-length", input.maxArrayLength());
    pools.put("input.max-string-length", input.maxStringLength());
    pools.put("input.max-nesting-depth", input.maxNestingDepth());
    pools.put("input.max-request-line", input.maxRequestLine());
    pools.put("input.max-header-bytes", input.maxHeaderBytes());
    pools.put("input.body-heap-bytes", bodies.heap());
    pools.put("workloads.on", workloads.on());
    // Quarkus' default: two event loops per CPU.
    pools.put(
        "reactive.event-loops", intValue("quarkus.vertx.event-loops-pool-size").orElse(2 * cpus));
    pools.put("reactive.pool-max-size", reactiveDb.maxSize());
    pools.put("reactive.pool-max-waiting", reactive.pool().maxWaiting());
    pools.put("reactive.web-client-max-connections", reactive.webClient().maxConnections());
    pools.put("mixed.max-cpu-ms", mixed.maxCpuMs());
    // SHA-256 rounds of loomlab.mixed.payload-bytes per ms of CPU, measured at start-up.
    pools.put("mixed.rounds-per-ms", cpuWork.calibrated().map(Math::round).orElse(null));
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

  private static Integer vmOption(String name) {
    try {
      HotSpotDiagnosticMXBean hotspot =
          ManagementFactory.getPlatformMXBean(HotSpotDiagnosticMXBean.class);
      return hotspot == null ? null : Integer.valueOf(hotspot.getVMOption(name).getValue());
    } catch (RuntimeException e) {
      return null; // not a HotSpot JVM, or no such option
    }
  }

  private static List<Long> range(ProductConfig.Latency latency) {
    return List.of(latency.minMs(), latency.maxMs());
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
