package dev.loomlab.execution;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Executors that workloads fan out to ({@code loomlab.execution.*}). */
@ConfigMapping(prefix = "loomlab.execution")
public interface ExecutionConfig {

  /** The shared fan-out pool of the worker mode. */
  FanOut fanOut();

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
