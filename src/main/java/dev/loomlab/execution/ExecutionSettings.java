package dev.loomlab.execution;

import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/** The wait budget, the fan-out executors' bounds and the workloads switched on. */
@ApplicationScoped
class ExecutionSettings implements PublishedSettings {

  private final WaitBudgets budgets;
  private final ExecutionConfig config;
  private final WorkloadSwitch workloads;

  ExecutionSettings(WaitBudgets budgets, ExecutionConfig config, WorkloadSwitch workloads) {
    this.budgets = budgets;
    this.config = config;
    this.workloads = workloads;
  }

  @Override
  public int order() {
    return 10;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    // One request's budget for waiting in every queue (thread, permit, bulkhead) before a 503.
    settings.put("execution.max-wait-ms", budgets.maxMillis());
    // false: a wait for a thread alone is never refused (the seeds' unbounded queue).
    settings.put("execution.thread-wait-bounded", budgets.threadWaitBounded());
    settings.put("fan-out.worker-threads", config.fanOut().workerThreads());
    settings.put("fan-out.worker-queue", config.fanOut().workerQueue());
    settings.put("workloads.on", workloads.on());
  }
}
