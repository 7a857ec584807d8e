package dev.loomlab.mixed;

import dev.loomlab.execution.EventLoopTimer;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.execution.WaitBudget.Queue;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.observability.WorkloadMetrics;
import dev.loomlab.problem.Bounds;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A request with CPU in it (issue "where virtual threads stop winning"): {@code cpuMs} of real CPU
 * work ({@link CpuWork}), then a wait of {@code waitMs}, the sleep's. On a thread (worker, virtual)
 * both hold the request's thread; in the reactive mode the wait is an event-loop timer and the work
 * runs either on the event loop itself, as a naive port would, or off it on the worker pool through
 * Vert.x' {@code executeBlocking}, as Quarkus documents for blocking or long work.
 */
@ApplicationScoped
public class MixedService {

  private final MixedConfig config;
  private final CpuWork cpu;
  private final EventLoopTimer eventLoop;
  private final WaitBudgets budgets;
  private final Map<Mode, Timer> timers;

  MixedService(
      MixedConfig config,
      CpuWork cpu,
      EventLoopTimer eventLoop,
      WaitBudgets budgets,
      WorkloadMetrics metrics) {
    this.config = config;
    this.cpu = cpu;
    this.eventLoop = eventLoop;
    this.budgets = budgets;
    this.timers = metrics.timers("mixed");
  }

  /** On the request's own thread: the work, then the wait, both holding the thread. */
  public MixedResult run(Mode mode, long cpuMs, long waitMs) {
    check(cpuMs, waitMs);
    long start = System.nanoTime();
    try {
      Burn burn = cpu.burn(cpuMs);
      Thread.sleep(waitMs);
      return MixedResult.of(mode.id(), false, cpuMs, waitMs, burn);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("wait interrupted", e);
    } finally {
      timers.get(mode).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
  }

  /** The naive reactive form: the work on the event loop, which serves nothing else meanwhile. */
  public Uni<MixedResult> onEventLoop(long cpuMs, long waitMs) {
    check(cpuMs, waitMs);
    long start = System.nanoTime();
    Burn burn = cpu.burn(cpuMs);
    return waitThenAnswer(start, false, cpuMs, waitMs, burn);
  }

  /**
   * The reactive form with the work moved off the loop: a worker-pool thread runs it (its wait for
   * that thread drawn from the request's budget, as in the worker mode), the loop waits the timer.
   */
  public Uni<MixedResult> offloaded(long cpuMs, long waitMs) {
    check(cpuMs, waitMs);
    long start = System.nanoTime();
    WaitBudget budget = budgets.current();
    Context loop = Vertx.currentContext();
    Uni<Burn> work =
        Uni.createFrom()
            .completionStage(
                () ->
                    loop.executeBlocking(
                            () -> {
                              budget.waited(Queue.THREAD, System.nanoTime() - start);
                              return cpu.burn(cpuMs);
                            },
                            false)
                        .toCompletionStage());
    return work.chain(burn -> waitThenAnswer(start, true, cpuMs, waitMs, burn));
  }

  private Uni<MixedResult> waitThenAnswer(
      long start, boolean offloaded, long cpuMs, long waitMs, Burn burn) {
    return eventLoop.after(
        waitMs,
        () -> {
          timers.get(Mode.REACTIVE).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
          return MixedResult.of(Mode.REACTIVE.id(), offloaded, cpuMs, waitMs, burn);
        });
  }

  private void check(long cpuMs, long waitMs) {
    Bounds.check("cpu-ms", cpuMs, 0, config.maxCpuMs());
    Bounds.check("wait-ms", waitMs, 0, config.maxWaitMs());
  }
}
