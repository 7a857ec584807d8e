package dev.loomlab.execution;

import io.quarkus.vertx.http.runtime.CurrentVertxRequest;
import io.vertx.ext.web.RoutingContext;
import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Measures, as a {@link WaitBudgeted} method starts, how long its request took from its start on
 * its thread to here: reading and parsing the body, validating it. That is the request's own work,
 * kept out of its wait budget and shown apart ({@code loomlab.execution.body.read}).
 */
@WaitBudgeted
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE)
class BodyReadInterceptor {

  private final WaitBudgets budgets;
  private final CurrentVertxRequest request;

  BodyReadInterceptor(WaitBudgets budgets, CurrentVertxRequest request) {
    this.budgets = budgets;
    this.request = request;
  }

  @AroundInvoke
  Object measured(InvocationContext invocation) throws Exception {
    RoutingContext ctx = request.getCurrent();
    Long started = ctx == null ? null : ctx.get(WaitBudgetFilters.STARTED);
    if (started != null) {
      budgets.bodyRead(WaitBudgets.currentMode(), System.nanoTime() - started);
    }
    return invocation.proceed();
  }
}
