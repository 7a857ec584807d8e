package dev.loomlab.execution;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/** Executors that workloads fan out to ({@code loomlab.execution.*}). */
@ConfigMapping(prefix = "loomlab.execution")
public interface ExecutionConfig {

  /** The shared fan-out pool of the worker mode. */
  FanOut fanOut();

  /**
   * {@code loomlab.execution.max-wait}: one request's budget for waiting, shared by every queue it
   * waits in before its work goes on (a thread, a database permit, the reactive bulkhead), the same
   * in every mode; past it, 503 {@code overloaded} naming the queue. The clock runs only while the
   * request waits: reading its body and running its work do not count.
   */
  @WithDefault("2s")
  Duration maxWait();

  /**
   * {@code loomlab.execution.thread-wait-bounded}: refuse a request whose wait for its thread alone
   * spent the budget. Off, a worker-mode request waits in the pool's queue as long as it takes (the
   * seeds' Tomcat behaviour) and a virtual thread as long as its carriers are pinned; the wait is
   * still measured, and still drawn from the budget the database waits get.
   */
  @WithDefault("true")
  boolean threadWaitBounded();

  /**
   * {@code loomlab.execution.workloads-off}: workloads this deployment does not serve (their paths
   * answer 404 saying so), e.g. {@code tasks,db,pinning,mixed}: the demos built to exhaust a
   * resource (threads and heap, connections, carriers, CPU), which a production deployment turns
   * off. None by default; {@code /api/info} lists what is on.
   */
  Optional<Set<Workload>> workloadsOff();

  /** {@code loomlab.execution.retry-after}: the Retry-After (s) of a 503 past the budget. */
  @WithDefault("1")
  int retryAfter();

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
