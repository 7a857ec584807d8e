package dev.loomlab.tasks;

import dev.loomlab.execution.Mode;
import dev.loomlab.execution.ModeExecutors;
import dev.loomlab.observability.ProcessMemory;
import dev.loomlab.observability.WorkloadMetrics;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.Problem;
import dev.loomlab.problem.ProblemException;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.lang.management.ThreadMXBean;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntBinaryOperator;

/**
 * Starts {@code count} tasks that each block {@code ms}, waits for all, and measures what they cost
 * (seed A1): one virtual thread per task, or a fixed pool of platform threads.
 */
@ApplicationScoped
public class TasksService {

  /**
   * Linked once with the class, not in a task's first run: that run follows a full GC, and linking
   * a method reference then can wait on the JDK's method-type table while the collector's cleared
   * references are queued, a wait that pins a virtual thread (seen once in a test, in {@code
   * MethodType.makeImpl}).
   */
  private static final IntBinaryOperator HIGHER = Math::max;

  private final TasksConfig config;
  private final Map<Mode, Timer> timers;
  private final ThreadMXBean threads = ManagementFactory.getThreadMXBean();
  private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
  // One measurement at a time, first come first served: the JVM's peak thread count, RSS and heap
  // are process-wide, so two overlapping runs would each report the other's threads and memory.
  private final Semaphore measuring = new Semaphore(1, true);
  private volatile long measuringUntilNanos;

  TasksService(TasksConfig config, WorkloadMetrics metrics) {
    this.config = config;
    this.timers = metrics.timers("tasks");
  }

  public TasksResult run(Mode mode, int count, long ms) {
    int maxCount = mode.isVirtual() ? config.maxCountVirtual() : config.maxCountWorker();
    Bounds.check("count", count, 1, maxCount);
    Bounds.check("ms", ms, 0, config.maxMs());
    int parallelism = mode.isVirtual() ? count : Math.min(count, config.workerPoolSize());
    long idealMs = ((count + parallelism - 1) / parallelism) * ms;
    if (idealMs > config.maxExpectedMs()) {
      String message =
          "would take at least "
              + idealMs
              + " ms, over loomlab.tasks.max-expected-ms="
              + config.maxExpectedMs();
      throw ProblemException.badRequest(
          "count=" + count + ", ms=" + ms + " " + message,
          List.of(new Problem.Violation("count", message)));
    }

    boolean acquired;
    try {
      acquired = measuring.tryAcquire(config.measurementWait().toMillis(), TimeUnit.MILLISECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the running measurement", e);
    }
    if (!acquired) {
      throw ProblemException.unavailable(
          "another tasks measurement is still running after loomlab.tasks.measurement-wait="
              + config.measurementWait(),
          retryAfterSeconds());
    }
    try {
      admit(mode, count);
      measuringUntilNanos = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(idealMs);
      return measure(mode, count, ms, parallelism, idealMs);
    } finally {
      measuring.release();
    }
  }

  /**
   * The most tasks of a mode this JVM's heap admits at all (its maximum heap less the headroom):
   * the bound {@code count} has beside {@code max-count-*}, published in {@code /api/info}.
   */
  public long admissible(Mode mode) {
    return heapBudget() / taskBytes(mode);
  }

  /**
   * Refuses, before anything starts, a run whose tasks would not fit in the heap: 400 when it could
   * never fit in this JVM, 503 with Retry-After when the heap holds too much right now (see
   * liveHeapBytes).
   */
  private void admit(Mode mode, int count) {
    long perTask = taskBytes(mode);
    long needed = count * perTask;
    long budget = heapBudget();
    if (needed > budget) {
      String message =
          "needs about "
              + needed / (1 << 20)
              + " MB of heap ("
              + perTask
              + " bytes a task); this JVM admits at most "
              + budget / perTask
              + " "
              + mode.id()
              + " tasks (max heap "
              + Runtime.getRuntime().maxMemory() / (1 << 20)
              + " MB less loomlab.tasks.heap-headroom="
              + config.heapHeadroom()
              + ")";
      throw ProblemException.badRequest(
          "count=" + count + " " + message, List.of(new Problem.Violation("count", message)));
    }
    long live = liveHeapBytes(needed, budget);
    if (live + needed > budget) {
      throw ProblemException.unavailable(
          "count="
              + count
              + " does not fit in the heap now ("
              + live / (1 << 20)
              + " MB live); at most "
              + Math.max(0, (budget - live) / perTask)
              + " "
              + mode.id()
              + " tasks would",
          1);
    }
  }

  private long taskBytes(Mode mode) {
    return Math.max(1, mode.isVirtual() ? config.virtualTaskBytes() : config.workerTaskBytes());
  }

  private long heapBudget() {
    return (long) (Runtime.getRuntime().maxMemory() * (1 - config.heapHeadroom()));
  }

  /**
   * Heap in use; when that leaves no room for the run, after a full GC (garbage would otherwise
   * refuse a run that fits; the measurement collects before it starts anyway).
   */
  private long liveHeapBytes(long needed, long budget) {
    long used = memory.getHeapMemoryUsage().getUsed();
    if (used + needed <= budget) {
      return used;
    }
    System.gc();
    return memory.getHeapMemoryUsage().getUsed();
  }

  /**
   * When the measurement in progress should end, at the earliest: a client's hint, not a promise.
   */
  private int retryAfterSeconds() {
    long left = measuringUntilNanos - System.nanoTime();
    return (int) Math.max(1, TimeUnit.NANOSECONDS.toSeconds(left) + 1);
  }

  private TasksResult measure(Mode mode, int count, long ms, int parallelism, long idealMs) {
    AtomicInteger running = new AtomicInteger();
    AtomicInteger peakRunning = new AtomicInteger();
    Runnable task =
        () -> {
          peakRunning.accumulateAndGet(running.incrementAndGet(), HIGHER);
          try {
            Thread.sleep(ms);
          } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
          } finally {
            running.decrementAndGet();
          }
        };

    // Memory is compared at two quiet points, each right after a full GC: before the tasks start,
    // and once while every task that can run at once is sleeping. What the GC keeps then is what
    // the sleeping tasks hold (a virtual thread's stack lives on the heap while it is parked; a
    // platform thread's stack is native memory, so it shows in RSS instead).
    System.gc();
    long rssBefore = ProcessMemory.rssBytes();
    long heapBefore = memory.getHeapMemoryUsage().getUsed();
    threads.resetPeakThreadCount();
    Snapshot atPeak = null;

    long start = System.nanoTime();
    String executorName =
        switch (mode) {
          case VIRTUAL -> "virtual-thread-per-task";
          case VIRTUAL_LOOP -> "virtual-thread-per-task(on the request's event loop)";
          default -> "fixed-platform-pool(" + config.workerPoolSize() + ")";
        };
    try (ExecutorService executor =
        ModeExecutors.perFanOut(mode, config.workerPoolSize(), "tasks")) {
      for (int i = 0; i < count; i++) {
        executor.execute(task);
      }
      executor.shutdown();
      while (!executor.awaitTermination(config.sampleIntervalMs(), TimeUnit.MILLISECONDS)) {
        if (atPeak == null && running.get() >= parallelism) {
          atPeak = Snapshot.afterGc(memory);
        }
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for tasks", e);
    }
    long elapsedNanos = System.nanoTime() - start;
    timers.get(mode).record(elapsedNanos, TimeUnit.NANOSECONDS);

    int peakConcurrent = Math.max(1, peakRunning.get());
    // Too short to catch every task asleep at once (ms near 0): no memory figure, not a wrong one.
    long rssGrowth = atPeak == null || rssBefore < 0 ? -1 : Math.max(0, atPeak.rss() - rssBefore);
    long heapGrowth = atPeak == null ? -1 : Math.max(0, atPeak.heap() - heapBefore);
    return new TasksResult(
        mode.id(),
        count,
        ms,
        TimeUnit.NANOSECONDS.toMillis(elapsedNanos),
        idealMs,
        executorName,
        peakRunning.get(),
        threads.getPeakThreadCount(),
        atPeak == null ? 0 : atPeak.gcPauseMs(),
        rssGrowth,
        heapGrowth,
        rssGrowth < 0 ? -1 : rssGrowth / peakConcurrent,
        heapGrowth < 0 ? -1 : heapGrowth / peakConcurrent);
  }

  /** Memory right after a full GC, and how long that GC held the tasks' timers back. */
  private record Snapshot(long rss, long heap, long gcPauseMs) {
    static Snapshot afterGc(MemoryMXBean memory) {
      long t0 = System.nanoTime();
      System.gc();
      long pause = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
      return new Snapshot(ProcessMemory.rssBytes(), memory.getHeapMemoryUsage().getUsed(), pause);
    }
  }
}
