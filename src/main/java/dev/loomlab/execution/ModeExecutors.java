package dev.loomlab.execution;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;

/**
 * Executors of each execution model for a workload's fan-out, so that a request's sub-tasks run on
 * threads of the same kind as the request itself: virtual threads for {@link Mode#VIRTUAL}, virtual
 * threads carried by the request's own event loop for {@link Mode#VIRTUAL_LOOP}, a bounded pool of
 * platform threads for {@link Mode#WORKER}.
 *
 * <p>The platform pool is never Quarkus' request worker pool: a request blocked waiting for
 * sub-tasks queued behind other requests on the same pool can deadlock it.
 */
public final class ModeExecutors {

  private ModeExecutors() {}

  /**
   * A fresh executor for one fan-out; close it (try-with-resources) to wait for its tasks.
   *
   * @param mode the request's execution model
   * @param platformThreads the fixed pool size used for {@link Mode#WORKER}
   * @param name thread name prefix, visible in thread dumps and answers
   */
  public static ExecutorService perFanOut(Mode mode, int platformThreads, String name) {
    return switch (mode) {
      case VIRTUAL, VIRTUAL_LOOP -> Executors.newThreadPerTaskExecutor(threadFactory(mode, name));
      case WORKER -> Executors.newFixedThreadPool(platformThreads, threadFactory(mode, name));
      case REACTIVE -> throw noThreads(name);
    };
  }

  /**
   * Thread factory of the mode's kind, threads named {@code name-mode-N}.
   *
   * <p>The name is joined, not concatenated with {@code +}: a {@code +} is an invokedynamic call
   * site, linked the first time it runs, and this method runs first on a request's virtual thread.
   * A linkage that waits for a lock (JDK 25: the method-type table's) waits in a native frame and
   * pins the carrier, which {@code @ShouldNotPin} caught once in the tasks tests under load.
   *
   * <p>A {@link Mode#VIRTUAL_LOOP} factory finds its loop when it makes a thread: the loop that
   * carries the calling virtual thread, so one factory serves every request.
   */
  public static ThreadFactory threadFactory(Mode mode, String name) {
    String prefix = String.join("-", name, mode.id(), "");
    return switch (mode) {
      case VIRTUAL -> Thread.ofVirtual().name(prefix, 0).factory();
      case VIRTUAL_LOOP -> task -> LoopCarriers.sameLoop(name).newThread(task);
      case WORKER -> Thread.ofPlatform().name(prefix, 0).daemon(true).factory();
      case REACTIVE -> throw noThreads(name);
    };
  }

  private static IllegalArgumentException noThreads(String name) {
    return new IllegalArgumentException(
        name + ": the reactive mode runs on the event loop and has no threads of its own");
  }
}
