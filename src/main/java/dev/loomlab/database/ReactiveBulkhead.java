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
 * each at most its own bound (a Vert.x timer), and a permit freed goes to the oldest waiter, on
 * that waiter's own Vert.x context.
 *
 * <p>The reactive pool is asked for a connection only with a permit in hand, and there are as many
 * permits as connections, so its own wait queue stays empty. That queue's timeout loses a
 * connection when it fires as the connection is handed over: under a flood of 300 users the pool
 * kept 8 to 11 of its 20 connections "active" for good after two runs. Here a permit is released
 * exactly once: by a waiter that times out or is cancelled, and by a holder when its work ends,
 * even if its caller went away before ({@link #holding}).
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
   * A permit, at once if one is free and nobody waits, else after the waiters before it; fails with
   * {@link TimeoutException} past {@code maxWait}, or {@link RejectedExecutionException} if {@code
   * maxWaiting} callers already wait. Cancelling the Uni gives up the place or the permit.
   */
  Uni<Permit> acquire(Duration maxWait) {
    return Uni.createFrom()
        .deferred(
            () -> {
              Waiter waiter = new Waiter();
              return Uni.createFrom()
                  .<Permit>emitter(emitter -> enter(waiter, emitter, maxWait))
                  .onCancellation()
                  .invoke(() -> abandon(waiter));
            });
  }

  /**
   * Runs {@code work} holding {@code permit}, released once when the work ends, whatever its caller
   * does. A caller that goes away (cancels) stops waiting for the result, not the work: the pool
   * below finishes a statement on its connection regardless, and a permit released at the
   * cancellation would let one caller more than there are free connections into the pool's own wait
   * queue, whose timeout loses connections (see above). Seen as one connection "active" for good
   * after 40 clients gave up on 400 ms queries with 2 connections on a busy machine.
   */
  static <T> Uni<T> holding(Permit permit, Supplier<Uni<? extends T>> work) {
    return Uni.createFrom()
        .emitter(
            caller ->
                Uni.createFrom()
                    .deferred(work)
                    .onTermination()
                    .invoke(permit::release)
                    .subscribe()
                    .with(caller::complete, caller::fail));
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

  private void enter(Waiter waiter, UniEmitter<? super Permit> emitter, Duration maxWait) {
    waiter.emitter = emitter;
    waiter.context = vertx.getOrCreateContext();
    boolean granted = false;
    boolean refused = false;
    lock.lock();
    try {
      if (available > 0 && waiters.isEmpty()) {
        available--;
        granted = true;
      } else if (maxWaiting >= 0 && waiters.size() >= maxWaiting) {
        refused = true;
      } else {
        waiters.addLast(waiter);
      }
    } finally {
      lock.unlock();
    }
    if (granted) {
      waiter.state.set(GRANTED);
      emitter.complete(waiter.permit);
    } else if (refused) {
      waiter.state.set(ABANDONED);
      emitter.fail(new RejectedExecutionException(maxWaiting + " callers wait already"));
    } else {
      long ms = Math.max(1, maxWait.toMillis());
      waiter.timer = vertx.setTimer(ms, id -> timeOut(waiter, ms));
    }
  }

  private void timeOut(Waiter waiter, long ms) {
    if (waiter.state.compareAndSet(WAITING, ABANDONED)) {
      remove(waiter);
      waiter.emitter.fail(new TimeoutException("no permit within " + ms + " ms"));
    }
  }

  private void abandon(Waiter waiter) {
    if (waiter.state.compareAndSet(WAITING, ABANDONED)) {
      remove(waiter);
      vertx.cancelTimer(waiter.timer);
    } else if (waiter.state.get() == GRANTED) {
      // Granted while its caller went away: the permit may never reach anyone who releases it.
      waiter.permit.release();
    }
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
      granted.context.runOnContext(v -> granted.emitter.complete(granted.permit));
    }
  }

  /** One holder's right to a connection; {@link #release()} counts once, however often called. */
  final class Permit {
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
    volatile UniEmitter<? super Permit> emitter;
    volatile Context context;
    volatile long timer = -1;
  }
}
