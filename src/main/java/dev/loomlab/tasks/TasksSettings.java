package dev.loomlab.tasks;

import dev.loomlab.execution.Mode;
import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/** The fan-out's bounds, and how many tasks of each mode this JVM's heap admits. */
@ApplicationScoped
class TasksSettings implements PublishedSettings {

  private final TasksConfig config;
  private final TasksService service;

  TasksSettings(TasksConfig config, TasksService service) {
    this.config = config;
    this.service = service;
  }

  @Override
  public int order() {
    return 20;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    settings.put("tasks.worker-pool-size", config.workerPoolSize());
    settings.put("tasks.max-count-worker", config.maxCountWorker());
    settings.put("tasks.max-count-virtual", config.maxCountVirtual());
    // What this JVM's heap admits, whatever max-count says (loomlab.tasks.*-task-bytes).
    settings.put("tasks.heap-admits-worker", service.admissible(Mode.WORKER));
    settings.put("tasks.heap-admits-virtual", service.admissible(Mode.VIRTUAL));
  }
}
