package dev.loomlab.execution;

import io.quarkus.arc.Arc;
import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.vertx.core.Context;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.function.Supplier;

/**
 * Where a request's {@link WaitBudget} lives: in its routing context for a REST request (opened by
 * {@link WaitBudgetFilters}), bound to the thread for work that arrives otherwise (a chunk of a
 * gRPC stream). Services take it at their entry, on the request's own thread or event loop, and
 * hand it to the sub-tasks they fan out.
 */
@ApplicationScoped
public class WaitBudgets {

  static final String BUDGET = "loomlab.wait-budget";
  private static final ThreadLocal<WaitBudget> BOUND = new ThreadLocal<>();

  private final ExecutionConfig config;
  private final WaitMeters meters;
  private final CurrentVertxRequest request;

  WaitBudgets(ExecutionConfig config, WaitMeters meters, CurrentVertxRequest request) {
    this.config = config;
    this.meters = meters;
    this.request = request;
  }

  /** A new budget for a request of {@code mode}, nothing waited yet. */
  public WaitBudget open(Mode mode) {
    return new WaitBudget(mode, config, meters);
  }

  /**
   * The current request's budget; a fresh one where there is no request (a health check, start-up),
   * so every database wait stays bounded.
   */
  public WaitBudget current() {
    WaitBudget bound = BOUND.get();
    if (bound != null) {
      return bound;
    }
    if (Arc.container().requestContext().isActive()) {
      RoutingContext ctx = request.getCurrent();
      WaitBudget budget = ctx == null ? null : ctx.get(BUDGET);
      if (budget != null) {
        return budget;
      }
    }
    return open(currentMode());
  }

  /** Runs {@code work} on this thread with {@code budget} as the current one. */
  public <T> T within(WaitBudget budget, Supplier<T> work) {
    WaitBudget before = BOUND.get();
    BOUND.set(budget);
    try {
      return work.get();
    } finally {
      BOUND.set(before);
    }
  }

  /** The budget in force, for /api/info and the reports (ms). */
  public long maxMillis() {
    return config.maxWait().toMillis();
  }

  /** Whether a wait for a thread alone may spend the budget and be refused. */
  public boolean threadWaitBounded() {
    return config.threadWaitBounded();
  }

  void bodyRead(Mode mode, long nanos) {
    meters.bodyRead(mode, nanos);
  }

  /**
   * The model of the calling thread: a virtual thread, an event loop, or a worker. (A loop-carried
   * virtual thread runs with the budget {@link LoopCarriers} bound to it, never asks.)
   */
  static Mode currentMode() {
    if (Thread.currentThread().isVirtual()) {
      return Mode.VIRTUAL;
    }
    return Context.isOnEventLoopThread() ? Mode.REACTIVE : Mode.WORKER;
  }
}
