package dev.loomlab.product;

import dev.loomlab.execution.Mode;
import dev.loomlab.observability.WorkloadMetrics;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The product lookup's meters, the same for both fan-outs: each lookup ({@code
 * loomlab.workload{workload=product}}), each dependency ({@code loomlab.dependency}), and the
 * sub-tasks running now ({@code loomlab.fanout.running}).
 */
@ApplicationScoped
class ProductMeters {

  private final Map<Mode, Timer> lookups;
  private final Map<Mode, Map<Dependency, Timer>> dependencies = new EnumMap<>(Mode.class);
  private final AtomicInteger running = new AtomicInteger();

  ProductMeters(WorkloadMetrics metrics) {
    this.lookups = metrics.timers("product");
    for (Mode mode : Mode.values()) {
      Map<Dependency, Timer> timers = new EnumMap<>(Dependency.class);
      for (Dependency d : Dependency.values()) {
        timers.put(
            d,
            Timer.builder("loomlab.dependency")
                .description("Time of one dependency of the product lookup")
                .tag("dependency", d.id())
                .tag("mode", mode.id())
                .register(metrics.registry()));
      }
      dependencies.put(mode, timers);
    }
    Gauge.builder("loomlab.fanout.running", running, AtomicInteger::get)
        .description("Sub-tasks of product lookups running now")
        .tag("workload", "product")
        .register(metrics.registry());
  }

  Timer lookup(Mode mode) {
    return lookups.get(mode);
  }

  Timer dependency(Mode mode, Dependency d) {
    return dependencies.get(mode).get(d);
  }

  /** A sub-task started; the returned action marks it ended. */
  Runnable started() {
    running.incrementAndGet();
    return running::decrementAndGet;
  }
}
