package dev.loomlab.execution;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.ExecutorServiceMetrics;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The long-lived executors that request handlers fan out to, one per model: a virtual thread per
 * sub-task for {@link Mode#VIRTUAL}, carried by the request's own event loop for {@link
 * Mode#VIRTUAL_LOOP}; for {@link Mode#WORKER} a fixed pool of platform threads with a bounded
 * queue, separate from the request worker pool (sub-tasks queued behind their own parents on that
 * pool could deadlock it).
 */
@ApplicationScoped
public class FanOutExecutors {

  private final Map<Mode, ExecutorService> executors = new EnumMap<>(Mode.class);
  private final ThreadPoolExecutor workerPool;

  FanOutExecutors(ExecutionConfig config, MeterRegistry registry) {
    ExecutionConfig.FanOut fanOut = config.fanOut();
    workerPool =
        new ThreadPoolExecutor(
            fanOut.workerThreads(),
            fanOut.workerThreads(),
            60,
            TimeUnit.SECONDS,
            new ArrayBlockingQueue<>(fanOut.workerQueue()),
            ModeExecutors.threadFactory(Mode.WORKER, "fan-out"),
            new ThreadPoolExecutor.AbortPolicy());
    workerPool.allowCoreThreadTimeOut(true);
    // executor_active_threads / executor_queued_tasks / ... {name="fan-out-worker"}
    new ExecutorServiceMetrics(workerPool, "fan-out-worker", Tags.empty()).bindTo(registry);
    executors.put(Mode.WORKER, workerPool);
    for (Mode mode : new Mode[] {Mode.VIRTUAL, Mode.VIRTUAL_LOOP}) {
      executors.put(
          mode, Executors.newThreadPerTaskExecutor(ModeExecutors.threadFactory(mode, "fan-out")));
    }
  }

  public ExecutorService executor(Mode mode) {
    return executors.get(mode);
  }

  /** The worker mode's pool, for its meters. */
  public ThreadPoolExecutor workerPool() {
    return workerPool;
  }

  @PreDestroy
  void shutdown() {
    executors.values().forEach(ExecutorService::shutdownNow);
  }
}
