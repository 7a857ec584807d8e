package dev.loomlab.execution;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Executors that workloads fan out to ({@code loomlab.execution.*}). */
@ConfigMapping(prefix = "loomlab.execution")
public interface ExecutionConfig {

  /** The shared fan-out pool of the worker mode. */
  FanOut fanOut();

  /** How long a request may wait for its thread. */
  QueueWait queueWait();

  interface QueueWait {
    /**
     * {@code loomlab.execution.queue-wait.enabled}: refuse a request that waited longer than {@link
     * #max()} between its arrival and the start of its work on a thread. Off, a worker-mode request
     * waits in the pool's queue for as long as it takes (the seeds' Tomcat behaviour).
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * {@code loomlab.execution.queue-wait.max}: the longest such wait; past it the request is
     * answered 503 with Retry-After without running its work. Both modes are checked the same way
     * (a virtual thread starts at once, so in practice only the worker pool's queue reaches it).
     */
    @WithDefault("2s")
    Duration max();
  }

  interface FanOut {
    /**
     * {@code loomlab.execution.fan-out.worker-threads}: platform threads for sub-tasks of
     * worker-mode requests (default: Quarkus' own worker pool default, 200).
     */
    @WithDefault("200")
    int workerThreads();

    /**
     * {@code loomlab.execution.fan-out.worker-queue}: sub-tasks that may wait for one of those
     * threads; past it a request is refused with 503 instead of queueing without bound.
     */
    @WithDefault("2000")
    int workerQueue();
  }
}
