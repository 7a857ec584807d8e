package dev.loomlab.execution;

import io.vertx.core.Context;
import jakarta.annotation.Priority;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;

/**
 * Runs {@link QueueWait#check()} on the request's thread before a workload method. A reactive
 * method starts on the event loop that received the request: it waited for no thread.
 */
@BoundedQueueWait
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE)
class QueueWaitInterceptor {

  private final QueueWait queueWait;

  QueueWaitInterceptor(QueueWait queueWait) {
    this.queueWait = queueWait;
  }

  @AroundInvoke
  Object bounded(InvocationContext invocation) throws Exception {
    if (!Context.isOnEventLoopThread()) {
      queueWait.check();
    }
    return invocation.proceed();
  }
}
