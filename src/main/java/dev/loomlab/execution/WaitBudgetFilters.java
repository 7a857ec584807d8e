package dev.loomlab.execution;

import dev.loomlab.execution.WaitBudget.Queue;
import io.vertx.ext.web.RoutingContext;
import jakarta.ws.rs.Priorities;
import org.jboss.resteasy.reactive.server.ServerRequestFilter;
import org.jboss.resteasy.reactive.server.SimpleResourceInfo;

/**
 * Opens the budget of every request to a {@link WaitBudgeted} resource. Quarkus REST runs the first
 * filter on the event loop just before it hands a request to its thread, and the second as the
 * request's first step on that thread, before the body is read: the time between is the wait for a
 * thread, drawn from the budget. A reactive request runs both on its event loop and waits for none.
 */
class WaitBudgetFilters {

  static final String DISPATCHED = "loomlab.dispatched-nanos";
  static final String STARTED = "loomlab.started-nanos";

  private final WaitBudgets budgets;

  WaitBudgetFilters(WaitBudgets budgets) {
    this.budgets = budgets;
  }

  @ServerRequestFilter(nonBlocking = true, priority = Priorities.USER - 100)
  void dispatched(RoutingContext ctx, SimpleResourceInfo resource) {
    if (resource.getResourceClass().isAnnotationPresent(WaitBudgeted.class)) {
      ctx.put(DISPATCHED, System.nanoTime());
    }
  }

  @ServerRequestFilter(priority = Priorities.USER - 99)
  void started(RoutingContext ctx) {
    Long dispatched = ctx.get(DISPATCHED);
    if (dispatched == null) {
      return;
    }
    long now = System.nanoTime();
    Mode mode = WaitBudgets.currentMode();
    WaitBudget budget = budgets.open(mode);
    ctx.put(WaitBudgets.BUDGET, budget);
    ctx.put(STARTED, now);
    if (mode != Mode.REACTIVE) {
      budget.waited(Queue.THREAD, now - dispatched);
    }
  }
}
