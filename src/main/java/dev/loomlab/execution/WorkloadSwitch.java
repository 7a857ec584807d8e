package dev.loomlab.execution;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loomlab.problem.ProblemResponses;
import dev.loomlab.problem.ProblemType;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Turns off the workloads of {@code loomlab.execution.workloads-off}: any of their paths, in every
 * mode, answers 404 naming the setting, before a thread, a connection or the body is spent.
 */
@ApplicationScoped
public class WorkloadSwitch {

  private final Set<Workload> off;
  private final ObjectMapper json;

  WorkloadSwitch(ExecutionConfig config, ObjectMapper json) {
    this.off = config.workloadsOff().map(EnumSet::copyOf).orElse(EnumSet.noneOf(Workload.class));
    this.json = json;
  }

  /** The workloads this deployment serves ({@code /api/info}). */
  public List<String> on() {
    return Arrays.stream(Workload.values())
        .filter(w -> !off.contains(w))
        .map(Workload::id)
        .toList();
  }

  void route(@Observes Router router) {
    for (Workload w : off) {
      for (Mode m : Mode.values()) {
        router
            .route("/api/" + m.id() + "/" + w.id() + "*")
            .order(Integer.MIN_VALUE)
            .handler(
                ctx ->
                    ProblemResponses.send(
                        ctx.request(),
                        json,
                        ProblemType.NOT_FOUND,
                        404,
                        w.id()
                            + " is turned off in this deployment"
                            + " (loomlab.execution.workloads-off)"));
      }
    }
  }
}
