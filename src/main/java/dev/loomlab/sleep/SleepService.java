package dev.loomlab.sleep;

import dev.loomlab.execution.EventLoopTimer;
import dev.loomlab.execution.Mode;
import dev.loomlab.observability.WorkloadMetrics;
import dev.loomlab.problem.Bounds;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Waits a requested time (seeds A2/A3): blocking the calling thread in the worker and virtual
 * modes, on an event-loop timer in the reactive mode.
 */
@ApplicationScoped
public class SleepService {

  private final SleepConfig config;
  private final EventLoopTimer eventLoop;
  private final Map<Mode, Timer> timers;

  SleepService(SleepConfig config, EventLoopTimer eventLoop, WorkloadMetrics metrics) {
    this.config = config;
    this.eventLoop = eventLoop;
    this.timers = metrics.timers("sleep");
  }

  public SleepResult sleep(Mode mode, long ms) {
    Bounds.check("ms", ms, 0, config.maxMs());
    long start = System.nanoTime();
    try {
      Thread.sleep(ms);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("sleep interrupted", e);
    } finally {
      timers.get(mode).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
    Thread current = Thread.currentThread();
    return new SleepResult(mode.id(), current.getName(), current.isVirtual(), ms);
  }

  /** The reactive form: a timer on the event loop, which stays free meanwhile. */
  public Uni<SleepResult> sleepOnEventLoop(long ms) {
    Bounds.check("ms", ms, 0, config.maxMs());
    long start = System.nanoTime();
    return eventLoop.after(
        ms,
        () -> {
          timers.get(Mode.REACTIVE).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
          return new SleepResult(Mode.REACTIVE.id(), Thread.currentThread().getName(), false, ms);
        });
  }
}
