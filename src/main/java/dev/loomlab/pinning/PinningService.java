package dev.loomlab.pinning;

import dev.loomlab.execution.Mode;
import dev.loomlab.observability.WorkloadMetrics;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.Problem;
import dev.loomlab.problem.ProblemException;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Blocks while holding a shared lock of the requested kind (seed E), to show which kinds pin a
 * virtual thread to its carrier on the running JDK.
 */
@ApplicationScoped
public class PinningService {

  private final PinningConfig config;
  private final Object[] monitors;
  private final ReentrantLock[] locks;
  private final AtomicLong next = new AtomicLong();
  private final Map<Mode, Timer> timers;

  PinningService(PinningConfig config, WorkloadMetrics metrics) {
    this.config = config;
    int stripes = Math.max(1, config.stripes());
    this.monitors = new Object[stripes];
    this.locks = new ReentrantLock[stripes];
    for (int i = 0; i < stripes; i++) {
      monitors[i] = new Object();
      locks[i] = new ReentrantLock();
    }
    this.timers = metrics.timers("pinning");
  }

  public PinningResult block(Mode mode, String lock, long ms) {
    LockKind kind = LockKind.parse(lock);
    if (kind == null) {
      String message = "must be one of synchronized, reentrant, native";
      throw ProblemException.badRequest(
          "lock=" + lock + ": " + message, List.of(new Problem.Violation("lock", message)));
    }
    Bounds.check("ms", ms, 0, config.maxMs());
    int stripe = (int) Math.floorMod(next.getAndIncrement(), (long) monitors.length);
    long start = System.nanoTime();
    switch (kind) {
      case SYNCHRONIZED -> {
        synchronized (monitors[stripe]) {
          sleep(ms);
        }
      }
      case REENTRANT -> {
        ReentrantLock l = locks[stripe];
        l.lock();
        try {
          sleep(ms);
        } finally {
          l.unlock();
        }
      }
      case NATIVE ->
          NativeFrames.get()
              .orElseThrow(
                  () ->
                      ProblemException.notImplemented(
                          "lock=native needs a native frame to block in: "
                              + NativeFrames.missingReason()))
              .run(() -> sleep(ms));
    }
    long nanos = System.nanoTime() - start;
    timers.get(mode).record(nanos, TimeUnit.NANOSECONDS);
    Thread t = Thread.currentThread();
    int jdk = Runtime.version().feature();
    return new PinningResult(
        mode.id(),
        kind.id(),
        jdk,
        t.getName(),
        t.isVirtual(),
        t.isVirtual() && kind.pinsOn(jdk),
        TimeUnit.NANOSECONDS.toMillis(nanos));
  }

  private static void sleep(long ms) {
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while holding the lock", e);
    }
  }
}
