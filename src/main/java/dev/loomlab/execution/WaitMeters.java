package dev.loomlab.execution;

import dev.loomlab.execution.WaitBudget.Queue;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * What requests waited for, split by queue ({@code loomlab.execution.wait{mode,queue}}), the
 * refusals past the budget ({@code loomlab.execution.refused}), and apart from both the time spent
 * reading and parsing a request's body ({@code loomlab.execution.body.read}), which is work, not a
 * queue.
 */
@ApplicationScoped
public class WaitMeters {

  private final Map<Mode, Map<Queue, Timer>> waits = new EnumMap<>(Mode.class);
  private final Map<Mode, Map<Queue, Counter>> refusals = new EnumMap<>(Mode.class);
  private final Map<Mode, Timer> bodies = new EnumMap<>(Mode.class);

  WaitMeters(MeterRegistry registry) {
    for (Mode mode : Mode.values()) {
      Map<Queue, Timer> timers = new EnumMap<>(Queue.class);
      Map<Queue, Counter> counters = new EnumMap<>(Queue.class);
      for (Queue queue : Queue.values()) {
        timers.put(
            queue,
            Timer.builder("loomlab.execution.wait")
                .description("Time a request waited in one queue before its work went on")
                .tag("mode", mode.id())
                .tag("queue", queue.id())
                .publishPercentileHistogram()
                .register(registry));
        counters.put(
            queue,
            Counter.builder("loomlab.execution.refused")
                .description("Requests answered 503 overloaded: their wait budget ran out here")
                .tag("mode", mode.id())
                .tag("queue", queue.id())
                .register(registry));
      }
      waits.put(mode, timers);
      refusals.put(mode, counters);
      bodies.put(
          mode,
          Timer.builder("loomlab.execution.body.read")
              .description("Time from a request's start on its thread to its method: body read")
              .tag("mode", mode.id())
              .register(registry));
    }
  }

  void waited(Mode mode, Queue queue, long nanos) {
    waits.get(mode).get(queue).record(nanos, TimeUnit.NANOSECONDS);
  }

  void refused(Mode mode, Queue queue) {
    refusals.get(mode).get(queue).increment();
  }

  void bodyRead(Mode mode, long nanos) {
    bodies.get(mode).record(nanos, TimeUnit.NANOSECONDS);
  }
}
