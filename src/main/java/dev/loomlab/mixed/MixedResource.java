package dev.loomlab.mixed;

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

/** {@code GET /api/{mode}/mixed}: {@code cpu-ms} of CPU work, then a wait of {@code wait-ms}. */
@Path("/api")
@WaitBudgeted
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "mixed", description = "CPU in the request: where virtual threads stop winning")
public class MixedResource {

  private static final String CPU = "Milliseconds of CPU work, 0..loomlab.mixed.max-cpu-ms (100)";
  private static final String WAIT = "Milliseconds to wait, 0..loomlab.mixed.max-wait-ms (10000)";
  private static final String OFFLOAD =
      "Run the CPU work on the worker pool (executeBlocking) instead of the event loop";

  private final MixedService service;
  private final LoopCarriers loops;

  MixedResource(MixedService service, LoopCarriers loops) {
    this.loops = loops;
    this.service = service;
  }

  @GET
  @Path("worker/mixed")
  @Blocking
  @Operation(summary = "CPU work then a wait, on a worker-pool platform thread")
  public MixedResult worker(
      @Parameter(description = CPU) @QueryParam("cpu-ms") @DefaultValue("5") long cpuMs,
      @Parameter(description = WAIT) @QueryParam("wait-ms") @DefaultValue("100") long waitMs) {
    return service.run(Mode.WORKER, cpuMs, waitMs);
  }

  @GET
  @Path("virtual/mixed")
  @RunOnVirtualThread
  @Operation(summary = "CPU work then a wait, on a virtual thread")
  public MixedResult virtual(
      @Parameter(description = CPU) @QueryParam("cpu-ms") @DefaultValue("5") long cpuMs,
      @Parameter(description = WAIT) @QueryParam("wait-ms") @DefaultValue("100") long waitMs) {
    return service.run(Mode.VIRTUAL, cpuMs, waitMs);
  }

  @GET
  @Path("virtual-loop/mixed")
  @Operation(summary = "CPU work then a wait, on a virtual thread carried by its event loop")
  public Uni<MixedResult> virtualLoop(
      @Parameter(description = CPU) @QueryParam("cpu-ms") @DefaultValue("5") long cpuMs,
      @Parameter(description = WAIT) @QueryParam("wait-ms") @DefaultValue("100") long waitMs) {
    return loops.call(() -> service.run(Mode.VIRTUAL_LOOP, cpuMs, waitMs));
  }

  @GET
  @Path("reactive/mixed")
  @Operation(summary = "CPU work on the event loop (or offloaded), then an event-loop timer")
  public Uni<MixedResult> reactive(
      @Parameter(description = CPU) @QueryParam("cpu-ms") @DefaultValue("5") long cpuMs,
      @Parameter(description = WAIT) @QueryParam("wait-ms") @DefaultValue("100") long waitMs,
      @Parameter(description = OFFLOAD) @QueryParam("offload") @DefaultValue("false")
          boolean offload) {
    return offload ? service.offloaded(cpuMs, waitMs) : service.onEventLoop(cpuMs, waitMs);
  }
}
