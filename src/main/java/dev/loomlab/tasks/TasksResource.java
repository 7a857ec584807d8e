package dev.loomlab.tasks;

import dev.loomlab.execution.LoopCarriers;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudgeted;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code GET /api/{mode}/tasks}: a mass fan-out of blocked tasks, measured. */
@Path("/api")
@WaitBudgeted
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "tasks", description = "Seed A1: many blocked tasks on threads of the request's model")
public class TasksResource {

  private static final String COUNT =
      "Tasks to start: 1..loomlab.tasks.max-count-virtual (1,000,000) or max-count-worker (10,000)";
  private static final String MS = "Milliseconds each task sleeps, 0..loomlab.tasks.max-ms (10000)";

  private final TasksService service;
  private final LoopCarriers loops;

  TasksResource(TasksService service, LoopCarriers loops) {
    this.loops = loops;
    this.service = service;
  }

  @GET
  @Path("worker/tasks")
  @Blocking
  @Operation(
      summary =
          "Run the tasks on a fixed pool of platform threads (loomlab.tasks.worker-pool-size)")
  public TasksResult worker(
      @Parameter(description = COUNT) @QueryParam("count") @DefaultValue("100") int count,
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("1000") long ms) {
    return service.run(Mode.WORKER, count, ms);
  }

  @GET
  @Path("virtual/tasks")
  @RunOnVirtualThread
  @Operation(summary = "Run each task on its own virtual thread")
  public TasksResult virtual(
      @Parameter(description = COUNT) @QueryParam("count") @DefaultValue("100") int count,
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("1000") long ms) {
    return service.run(Mode.VIRTUAL, count, ms);
  }

  @GET
  @Path("virtual-loop/tasks")
  @Operation(
      summary = "Run each task on its own virtual thread, all carried by the request's event loop")
  public Uni<TasksResult> virtualLoop(
      @Parameter(description = COUNT) @QueryParam("count") @DefaultValue("100") int count,
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("1000") long ms) {
    return loops.call(() -> service.run(Mode.VIRTUAL_LOOP, count, ms));
  }
}
