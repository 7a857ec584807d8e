package dev.loomlab.sleep;

import dev.loomlab.execution.Mode;
import dev.loomlab.observability.WorkloadMetrics;
import dev.loomlab.problem.Bounds;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/** Blocks the calling thread for a requested time (seeds A2/A3). */
@ApplicationScoped
public class SleepService {

  private final SleepConfig config;
  private final Map<Mode, Timer> timers;

  SleepService(SleepConfig config, WorkloadMetrics metrics) {
    this.config = config;
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
      timers.get(mode).record(System.nanoTime() - start, java.util.concurrent.TimeUnit.NANOSECONDS);
    }
    Thread current = Thread.currentThread();
    return new SleepResult(mode.id(), current.getName(), current.isVirtual(), ms);
  }
}
