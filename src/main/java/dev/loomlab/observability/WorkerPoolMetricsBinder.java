package dev.loomlab.observability;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.quarkus.runtime.ExecutorRecorder;
import io.quarkus.runtime.annotations.RegisterForReflection;
import io.quarkus.runtime.util.ForwardingExecutorService;
import io.quarkus.runtime.util.NoopShutdownScheduledExecutorService;
import jakarta.inject.Singleton;
import java.lang.reflect.Method;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.function.ToDoubleFunction;
import org.jboss.threads.EnhancedQueueExecutor;

/**
 * Gauges for Quarkus' main executor, the pool that runs {@code @Blocking} endpoints
 * ("executor-thread-N"). Vert.x's {@code worker_pool_*} meters describe a facade that REST
 * endpoints do not go through (quarkusio/quarkus#37729), so they stay at zero under worker-mode
 * load. Names follow Micrometer's {@code ExecutorServiceMetrics}, tagged {@code
 * name=quarkus-worker}.
 */
@Singleton
@RegisterForReflection(
    targets = {NoopShutdownScheduledExecutorService.class, ForwardingExecutorService.class},
    methods = true,
    fields = false)
public class WorkerPoolMetricsBinder implements MeterBinder {

  public static final String POOL_NAME = "quarkus-worker";

  /** The executor behind {@code @Blocking}, if it is the JBoss Threads one. */
  public static Optional<EnhancedQueueExecutor> workerPool() {
    return Optional.ofNullable(unwrap(ExecutorRecorder.getCurrent()));
  }

  /**
   * Outside dev mode Quarkus hands out its pool behind a wrapper that ignores shutdown(); the pool
   * itself is only reachable through the wrapper's protected {@code delegate()}.
   */
  private static EnhancedQueueExecutor unwrap(Executor executor) {
    for (int depth = 0; depth < 4 && executor != null; depth++) {
      if (executor instanceof EnhancedQueueExecutor pool) {
        return pool;
      }
      if (!(executor instanceof ForwardingExecutorService)) {
        return null;
      }
      try {
        Method delegate = findDelegate(executor.getClass());
        delegate.setAccessible(true);
        executor = (Executor) delegate.invoke(executor);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return null;
      }
    }
    return null;
  }

  private static Method findDelegate(Class<?> type) throws NoSuchMethodException {
    for (Class<?> c = type; c != null; c = c.getSuperclass()) {
      try {
        return c.getDeclaredMethod("delegate");
      } catch (NoSuchMethodException e) {
        // keep looking in the superclass
      }
    }
    throw new NoSuchMethodException(type + ".delegate()");
  }

  @Override
  public void bindTo(MeterRegistry registry) {
    Tags tags = Tags.of("name", POOL_NAME);
    gauge(
        registry,
        "executor.active",
        "threads",
        "Threads running a task",
        tags,
        EnhancedQueueExecutor::getActiveCount);
    gauge(
        registry,
        "executor.queued",
        "tasks",
        "Tasks waiting for a thread",
        tags,
        EnhancedQueueExecutor::getQueueSize);
    gauge(
        registry,
        "executor.pool.size",
        "threads",
        "Threads in the pool",
        tags,
        EnhancedQueueExecutor::getPoolSize);
    gauge(
        registry,
        "executor.pool.max",
        "threads",
        "Most threads the pool may start",
        tags,
        EnhancedQueueExecutor::getMaximumPoolSize);
    gauge(
        registry,
        "executor.pool.largest",
        "threads",
        "Most threads the pool has had",
        tags,
        EnhancedQueueExecutor::getLargestPoolSize);
    FunctionCounter.builder(
            "executor.completed", this, b -> value(EnhancedQueueExecutor::getCompletedTaskCount))
        .description("Tasks the pool has completed")
        .baseUnit("tasks")
        .tags(tags)
        .register(registry);
    FunctionCounter.builder(
            "executor.rejected", this, b -> value(EnhancedQueueExecutor::getRejectedTaskCount))
        .description("Tasks the pool has rejected")
        .baseUnit("tasks")
        .tags(tags)
        .register(registry);
  }

  private void gauge(
      MeterRegistry registry,
      String name,
      String unit,
      String description,
      Tags tags,
      ToDoubleFunction<EnhancedQueueExecutor> f) {
    Gauge.builder(name, this, b -> value(f))
        .description(description)
        .baseUnit(unit)
        .tags(tags)
        .register(registry);
  }

  private static double value(ToDoubleFunction<EnhancedQueueExecutor> f) {
    // JBoss Threads answers -1 for the counters unless started with
    // -Djboss.threads.eqe.statistics=true (./lab and the images set it): NaN, not a false figure.
    double v = workerPool().map(f::applyAsDouble).orElse(Double.NaN);
    return v < 0 ? Double.NaN : v;
  }
}
