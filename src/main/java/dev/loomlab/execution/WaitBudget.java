package dev.loomlab.execution;

import dev.loomlab.problem.ProblemException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One request's budget for waiting ({@code loomlab.execution.max-wait}): every queue it waits in
 * before its work starts (a thread, a connection permit, the reactive bulkhead) draws on the same
 * budget, in every mode. Its own work (reading and parsing its body, running its queries) does not.
 * Past the budget the request is answered 503 {@code overloaded} naming the queue, nothing started.
 */
public final class WaitBudget {

  /** The queues a request can wait in, as named in metrics and problems. */
  public enum Queue {
    /** A worker thread from Quarkus' pool, or a carrier for a virtual thread. */
    THREAD("thread", "a thread"),
    /** A permit of the database bulkhead in front of the JDBC pool. */
    PERMIT("permit", "a database connection permit"),
    /** The reactive pool's bulkhead, which holds no thread while it waits. */
    BULKHEAD("bulkhead", "a reactive pool connection");

    private final String id;
    private final String what;

    Queue(String id, String what) {
      this.id = id;
      this.what = what;
    }

    /** The tag value in metrics and the {@code queue} member of the problem. */
    public String id() {
      return id;
    }
  }

  private final Mode mode;
  private final long maxNanos;
  private final boolean threadWaitBounded;
  private final int retryAfterSeconds;
  private final WaitMeters meters;
  private final AtomicLong waited = new AtomicLong();

  WaitBudget(Mode mode, ExecutionConfig config, WaitMeters meters) {
    this.mode = mode;
    this.maxNanos = config.maxWait().toNanos();
    this.threadWaitBounded = config.threadWaitBounded();
    this.retryAfterSeconds = config.retryAfter();
    this.meters = meters;
  }

  /** What is left to wait, in nanoseconds (0 once spent). */
  public long remainingNanos() {
    return Math.max(0, maxNanos - waited.get());
  }

  /** What is left to wait. */
  public Duration remaining() {
    return Duration.ofNanos(remainingNanos());
  }

  /**
   * Books a wait that ended with the request served by {@code queue}. A permit or a pool connection
   * is only waited for within what is left, so once served the work goes on; a wait for a thread is
   * only known once the thread runs, and past the budget the request is refused there.
   */
  public void waited(Queue queue, long nanos) {
    long total = book(queue, nanos);
    if (queue == Queue.THREAD && threadWaitBounded && total > maxNanos) {
      throw refusal(queue, nanos);
    }
  }

  /**
   * Books a wait for {@code queue} that ran out of budget and returns the refusal to throw: 503
   * {@code overloaded} with Retry-After, the queue named.
   */
  public ProblemException exhausted(Queue queue, long nanos) {
    book(queue, nanos);
    return refusal(queue, nanos);
  }

  private long book(Queue queue, long nanos) {
    meters.waited(mode, queue, nanos);
    return waited.addAndGet(nanos);
  }

  private ProblemException refusal(Queue queue, long nanos) {
    meters.refused(mode, queue);
    return ProblemException.overloaded(
        "waited "
            + TimeUnit.NANOSECONDS.toMillis(nanos)
            + " ms for "
            + queue.what
            + " ("
            + TimeUnit.NANOSECONDS.toMillis(waited.get())
            + " ms of waiting in all), over loomlab.execution.max-wait="
            + TimeUnit.NANOSECONDS.toMillis(maxNanos)
            + " ms; not started, retry later",
        queue.id(),
        retryAfterSeconds);
  }

  /** The mode whose request this is. */
  public Mode mode() {
    return mode;
  }
}
