package dev.loomlab.tasks;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Knobs of the mass fan-out workload ({@code loomlab.tasks.*}). */
@ConfigMapping(prefix = "loomlab.tasks")
public interface TasksConfig {

  /**
   * {@code loomlab.tasks.worker-pool-size}: fixed platform pool of the worker mode (seed A1: 10).
   */
  @WithDefault("10")
  int workerPoolSize();

  /** {@code loomlab.tasks.max-count-virtual}: most tasks one virtual-mode request may start. */
  @WithDefault("1000000")
  int maxCountVirtual();

  /** {@code loomlab.tasks.max-count-worker}: most tasks one worker-mode request may queue. */
  @WithDefault("10000")
  int maxCountWorker();

  /** {@code loomlab.tasks.max-ms}: the longest sleep a task may be asked for. */
  @WithDefault("10000")
  long maxMs();

  /**
   * {@code loomlab.tasks.max-expected-ms}: reject requests whose ideal duration (waves of the pool
   * times {@code ms}) exceeds this, so no request holds a thread for minutes.
   */
  @WithDefault("60000")
  long maxExpectedMs();

  /**
   * {@code loomlab.tasks.sample-interval-ms}: how often a run checks whether all its concurrent
   * tasks are asleep, to measure their memory then.
   */
  @WithDefault("20")
  long sampleIntervalMs();

  /**
   * {@code loomlab.tasks.measurement-wait}: the figures of a run (peak threads, RSS and heap per
   * task) are process-wide, so runs are measured one at a time; a request waits at most this long
   * for the one in progress (no longer than any request waits: {@code loomlab.execution.max-wait}'s
   * default), then gets 503 with a Retry-After of when that run should end. The full GCs a run
   * forces are its measurement (heap per sleeping task), one run at a time.
   */
  @WithDefault("2s")
  Duration measurementWait();

  /**
   * {@code loomlab.tasks.virtual-task-bytes}: heap one virtual-mode task may take while it runs,
   * for admission. A parked virtual thread keeps its stack on the heap: 1-2.6 KB retained after a
   * full GC was measured here; this estimate adds the thread object, the executor's bookkeeping and
   * what a run allocates on its way, so that an admitted run never exhausts the heap.
   */
  @WithDefault("4096")
  long virtualTaskBytes();

  /**
   * {@code loomlab.tasks.worker-task-bytes}: heap one queued worker-mode task takes (a queue node;
   * the pool's threads are platform threads whose stacks are native memory).
   */
  @WithDefault("64")
  long workerTaskBytes();

  /**
   * {@code loomlab.tasks.heap-headroom}: the share of the maximum heap a run may never use, left to
   * the rest of the service (requests, metrics, health) while tasks run.
   */
  @WithDefault("0.25")
  double heapHeadroom();
}
