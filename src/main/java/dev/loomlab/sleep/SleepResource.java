package dev.loomlab.sleep;

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

/** {@code GET /api/{mode}/sleep}: the request waits {@code ms}, holding its thread or not. */
@Path("/api")
@WaitBudgeted
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "sleep", description = "Seeds A2/A3: a request that blocks its thread")
public class SleepResource {

  private static final String MS = "Milliseconds to sleep, 0..loomlab.sleep.max-ms (10000)";

  private final SleepService service;
  private final LoopCarriers loops;

  SleepResource(SleepService service, LoopCarriers loops) {
    this.loops = loops;
    this.service = service;
  }

  @GET
  @Path("worker/sleep")
  @Blocking
  @Operation(summary = "Sleep on a worker-pool platform thread")
  public SleepResult worker(
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("100") long ms) {
    return service.sleep(Mode.WORKER, ms);
  }

  @GET
  @Path("virtual/sleep")
  @RunOnVirtualThread
  @Operation(summary = "Sleep on a virtual thread")
  public SleepResult virtual(
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("100") long ms) {
    return service.sleep(Mode.VIRTUAL, ms);
  }

  @GET
  @Path("virtual-loop/sleep")
  @Operation(summary = "Sleep on a virtual thread carried by its event loop")
  public Uni<SleepResult> virtualLoop(
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("100") long ms) {
    return loops.call(() -> service.sleep(Mode.VIRTUAL_LOOP, ms));
  }

  @GET
  @Path("reactive/sleep")
  @Operation(summary = "Wait on an event-loop timer, no thread held")
  public Uni<SleepResult> reactive(
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("100") long ms) {
    return service.sleepOnEventLoop(ms);
  }
}
