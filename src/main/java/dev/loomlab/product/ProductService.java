package dev.loomlab.product;

import dev.loomlab.execution.Clients;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.ProblemException;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.TimeUnit;

/**
 * A product lookup (seed C): four slow dependencies called in parallel, so the answer takes as long
 * as the slowest of them, not their sum. On threads the blocking clients fan out on an executor of
 * the request's model ({@link ThreadedFanOut}); on the event loop, and for virtual threads awaiting
 * the reactive clients, the non-blocking ones are combined with Mutiny ({@link EventLoopFanOut}).
 * The same latencies, timeout, answer and meters either way.
 */
@ApplicationScoped
public class ProductService {

  private final ProductConfig config;
  private final ThreadedFanOut threaded;
  private final EventLoopFanOut eventLoop;
  private final WaitBudgets budgets;
  private final ProductMeters meters;

  ProductService(
      ProductConfig config,
      ThreadedFanOut threaded,
      EventLoopFanOut eventLoop,
      WaitBudgets budgets,
      ProductMeters meters) {
    this.config = config;
    this.threaded = threaded;
    this.eventLoop = eventLoop;
    this.budgets = budgets;
    this.meters = meters;
  }

  /**
   * The lookup on the request's thread: the blocking clients on the mode's fan-out executor, or
   * ({@code clients=reactive}, the virtual mode's variant) the non-blocking ones awaited there.
   */
  public ProductView lookup(Mode mode, long id, Clients clients) {
    if (clients == Clients.REACTIVE) {
      // combined() answers by loomlab.product.timeout (504 naming the laggards); twice that is a
      // net under the net, so that no thread ever waits unbounded.
      try {
        return combined(mode, id).await().atMost(config.timeout().multipliedBy(2));
      } catch (TimeoutException e) {
        throw ProblemException.gatewayTimeout(
            "the product's dependencies did not answer within twice loomlab.product.timeout");
      }
    }
    Bounds.check("id", id, 1, Long.MAX_VALUE);
    long start = System.nanoTime();
    Lookup lookup = threaded.lookup(mode, id, LatencyPlan.draw(config, id), budgets.current());
    return answered(mode, Clients.BLOCKING, lookup, start);
  }

  /** The reactive form: the same four dependencies combined on the event loop. */
  public Uni<ProductView> lookupOnEventLoop(long id) {
    return combined(Mode.REACTIVE, id);
  }

  private Uni<ProductView> combined(Mode mode, long id) {
    Bounds.check("id", id, 1, Long.MAX_VALUE);
    WaitBudget budget = budgets.current();
    long start = System.nanoTime();
    return eventLoop
        .lookup(mode, id, LatencyPlan.draw(config, id), budget)
        .map(lookup -> answered(mode, Clients.REACTIVE, lookup, start));
  }

  private ProductView answered(Mode mode, Clients clients, Lookup lookup, long start) {
    long totalNanos = System.nanoTime() - start;
    meters.lookup(mode).record(totalNanos, TimeUnit.NANOSECONDS);
    return lookup.view(mode, clients, TimeUnit.NANOSECONDS.toMillis(totalNanos));
  }
}
