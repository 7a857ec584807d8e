package dev.loomlab.database;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.subscription.UniEmitter;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Supplier;

/**
 * A fair semaphore that never blocks a thread: the reactive form of the other modes' bulkhead
 * ({@code loomlab.db.bulkhead}, a fair {@link java.util.concurrent.Semaphore}). Callers wait FIFO,
 * each at most its own bound (a Vert.x timer), and a permit freed goes to the oldest waiter, whose
 * work then starts on that waiter's own Vert.x context.
 *
 * <p>The reactive pool is asked for a connection only with a permit in hand, and there are as many
 * permits as connections, so its own wait queue stays empty. That queue's timeout loses a
 * connection when it fires as the connection is handed over: under a flood of 300 users the pool
 * kept 8 to 11 of its 20 connections "active" for good after two runs. Here a permit is released
 * exactly once, by the bulkhead itself when the work it started ends, and it never travels down a
 * Uni as an item: Mutiny drops an item that meets a cancellation on its way (a caller leaving as
 * its permit arrived): a test of 3,000 callers, 1,000 of them cancelled, once ended with 3 of its 4
 * permits free for good.
 */
final class ReactiveBulkhead {

  private static final int WAITING = 0;
  private static final int GRANTED = 1;
  private static final int ABANDONED = 2;

  private final Vertx vertx;
  private final int maxWaiting;
  // Held for a few field updates, never across a call out: no thread waits on it for long.
  private final ReentrantLock lock = new ReentrantLock();
  private final ArrayDeque<Waiter> waiters = new ArrayDeque<>();
  private int available;

  /**
   * @param permits how many holders at once
   * @param maxWaiting how many may wait at once, past it refused at once; -1: no bound but time
   */
  ReactiveBulkhead(Vertx vertx, int permits, int maxWaiting) {
    if (permits < 1) {
      throw new IllegalArgumentException("a bulkhead needs at least one permit, not " + permits);
    }
    this.vertx = vertx;
    this.available = permits;
    this.maxWaiting = maxWaiting;
  }

  /**
   * Runs {@code work} holding a permit, at once if one is free and nobody waits, else after the
   * waiters before it; fails with {@link TimeoutException} past {@code maxWait}, or {@link
   * RejectedExecutionException} if {@code maxWaiting} callers already wait. A caller that goes away
   * (cancels) while it waits gives up its place; once its work started, it stops waiting for the
   * result, not the work: the pool below finishes a statement on its connection regardless, and a
   * permit released at the cancellation would let one caller more than there are free connections
   * into the pool's own wait queue, whose timeout loses connections (see above). Seen as one
   * connection "active" for good after 40 clients gave up on 400 ms queries with 2 connections.
   */
  <T> Uni<T> withPermit(Duration maxWait, Supplier<Uni<? extends T>> work) {
    return Uni.createFrom()
        .deferred(
            () -> {
              Waiter waiter = new Waiter();
              return Uni.createFrom()
                  .<T>emitter(
                      caller -> enter(waiter, () -> run(waiter, work, caller), caller, maxWait))
                  .onCancellation()
                  .invoke(() -> abandon(waiter));
            });
  }

  /** Callers waiting for a permit now. */
  int waiting() {
    lock.lock();
    try {
      return waiters.size();
    } finally {
      lock.unlock();
    }
  }

  /** Permits free now. */
  int available() {
    lock.lock();
    try {
      return available;
    } finally {
      lock.unlock();
    }
  }

  private void enter(Waiter waiter, Runnable start, UniEmitter<?> caller, Duration maxWait) {
    waiter.start = start;
    waiter.context = vertx.getOrCreateContext();
    boolean granted = false;
    boolean refused = false;
    boolean queued = false;
    lock.lock();
    try {
      // Each CAS fails only if the caller left before it entered: then it takes nothing.
      if (available > 0 && waiters.isEmpty()) {
        granted = waiter.state.compareAndSet(WAITING, GRANTED);
        available -= granted ? 1 : 0;
      } else if (maxWaiting >= 0 && waiters.size() >= maxWaiting) {
        refused = waiter.state.compareAndSet(WAITING, ABANDONED);
      } else if (waiter.state.get() == WAITING) {
        waiters.addLast(waiter); // a caller leaving now removes it once this lock is free
        queued = true;
      }
    } finally {
      lock.unlock();
    }
    if (granted) {
      start.run();
    } else if (refused) {
      caller.fail(new RejectedExecutionException(maxWaiting + " callers wait already"));
    } else if (queued) {
      long ms = Math.max(1, maxWait.toMillis());
      try {
        waiter.timer = vertx.setTimer(ms, id -> timeOut(waiter, caller, ms));
      } catch (RuntimeException closing) { // Vert.x closing: no timer, so no wait
        if (waiter.state.compareAndSet(WAITING, ABANDONED)) {
          remove(waiter);
        }
        throw closing;
      }
      if (waiter.state.get() != WAITING) {
        vertx.cancelTimer(waiter.timer); // granted or gone before its timer was set
      }
    }
  }

  /** The work, holding {@code waiter}'s permit until it ends; none if its caller left already. */
  private <T> void run(
      Waiter waiter, Supplier<Uni<? extends T>> work, UniEmitter<? super T> caller) {
    if (waiter.gone) {
      waiter.permit.release();
      return;
    }
    Uni.createFrom()
        .deferred(work)
        .onTermination()
        .invoke(waiter.permit::release)
        .subscribe()
        .with(caller::complete, caller::fail);
  }

  private void timeOut(Waiter waiter, UniEmitter<?> caller, long ms) {
    if (waiter.state.compareAndSet(WAITING, ABANDONED)) {
      remove(waiter);
      caller.fail(new TimeoutException("no permit within " + ms + " ms"));
    }
  }

  private void abandon(Waiter waiter) {
    waiter.gone = true;
    if (waiter.state.compareAndSet(WAITING, ABANDONED)) {
      remove(waiter);
      vertx.cancelTimer(waiter.timer);
    }
    // Granted: the permit is the work's (run), released when the work ends or, if the work had not
    // started, at once.
  }

  private void remove(Waiter waiter) {
    lock.lock();
    try {
      waiters.remove(waiter);
    } finally {
      lock.unlock();
    }
  }

  private void release() {
    Waiter next = null;
    lock.lock();
    try {
      while (!waiters.isEmpty()) {
        Waiter candidate = waiters.pollFirst();
        if (candidate.state.compareAndSet(WAITING, GRANTED)) {
          next = candidate;
          break;
        }
      }
      if (next == null) {
        available++;
      }
    } finally {
      lock.unlock();
    }
    if (next != null) {
      Waiter granted = next;
      vertx.cancelTimer(granted.timer);
      granted.context.runOnContext(v -> granted.start.run());
    }
  }

  /** One holder's right to a connection; {@link #release()} counts once, however often called. */
  private final class Permit {
    private final AtomicBoolean released = new AtomicBoolean();

    void release() {
      if (released.compareAndSet(false, true)) {
        ReactiveBulkhead.this.release();
      }
    }
  }

  private final class Waiter {
    final AtomicInteger state = new AtomicInteger(WAITING);
    final Permit permit = new Permit();
    volatile Runnable start;
    volatile Context context;
    volatile long timer = -1;
    volatile boolean gone;
  }
}
