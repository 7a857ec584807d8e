package dev.loomlab.execution;

import dev.loomlab.problem.ProblemException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The wait between a request's arrival (stamped on the event loop before anything else) and the
 * start of its work on a worker or virtual thread: measured for every workload request, and bounded
 * by {@code loomlab.execution.queue-wait.*}. The check runs when the work starts, so a refused
 * request has waited at most the bound plus the time until a thread came free.
 */
@ApplicationScoped
public class QueueWait {

  private static final String ARRIVAL = "loomlab.arrival-nanos";

  private final ExecutionConfig.QueueWait config;
  private final CurrentVertxRequest request;
  private final Map<Mode, Timer> waits = new EnumMap<>(Mode.class);
  private final Map<Mode, Counter> refused = new EnumMap<>(Mode.class);

  QueueWait(ExecutionConfig config, CurrentVertxRequest request, MeterRegistry registry) {
    this.config = config.queueWait();
    this.request = request;
    for (Mode mode : Mode.ON_THREADS) {
      waits.put(
          mode,
          Timer.builder("loomlab.execution.queue.wait")
              .description("Time from a request's arrival to the start of its work on a thread")
              .tag("mode", mode.id())
              .publishPercentileHistogram()
              .register(registry));
      refused.put(
          mode,
          Counter.builder("loomlab.execution.queue.refused")
              .description("Requests answered 503 because they waited too long for a thread")
              .tag("mode", mode.id())
              .register(registry));
    }
  }

  /** Stamps every request's arrival, first among the router's handlers. */
  void stampArrival(@Observes Router router) {
    router
        .route()
        .order(Integer.MIN_VALUE)
        .handler(
            ctx -> {
              ctx.put(ARRIVAL, System.nanoTime());
              ctx.next();
            });
  }

  /** Called on the request's own thread as its work starts (see {@link BoundedQueueWait}). */
  void check() {
    RoutingContext ctx = request.getCurrent();
    Long arrival = ctx == null ? null : ctx.get(ARRIVAL);
    if (arrival != null) {
      admit(arrival);
    }
  }

  /**
   * Called on a unit of work's own thread as it starts, for work that arrives other than as a REST
   * request (a chunk of a gRPC stream): records the wait since {@code arrivalNanos} ({@link
   * System#nanoTime()}) and refuses the work with 503 {@code overloaded} past the bound.
   */
  public void admit(long arrivalNanos) {
    long waited = System.nanoTime() - arrivalNanos;
    Mode mode = Thread.currentThread().isVirtual() ? Mode.VIRTUAL : Mode.WORKER;
    waits.get(mode).record(waited, TimeUnit.NANOSECONDS);
    if (config.enabled() && waited > config.max().toNanos()) {
      refused.get(mode).increment();
      throw ProblemException.unavailable(
          "waited "
              + TimeUnit.NANOSECONDS.toMillis(waited)
              + " ms for a "
              + mode.id()
              + " thread, over loomlab.execution.queue-wait.max="
              + config.max().toMillis()
              + " ms; the work was not started, retry later",
          1);
    }
  }

  /** The bound in force, for /api/info and the reports: milliseconds, or -1 when off. */
  public long maxMillis() {
    return config.enabled() ? config.max().toMillis() : -1;
  }
}
