package dev.loomlab.pinning;

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

/** {@code GET /api/{mode}/pinning}: block while holding a lock of the requested kind. */
@Path("/api")
@WaitBudgeted
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "pinning", description = "Seed E: which kinds of blocking pin a virtual thread")
public class PinningResource {

  private static final String LOCK = "synchronized, reentrant or native (an FFM upcall)";
  private static final String MS = "Milliseconds to block, 0..loomlab.pinning.max-ms (2000)";

  private final PinningService service;
  private final LoopCarriers loops;

  PinningResource(PinningService service, LoopCarriers loops) {
    this.loops = loops;
    this.service = service;
  }

  @GET
  @Path("worker/pinning")
  @Blocking
  @Operation(summary = "Block holding a lock, on a worker thread")
  public PinningResult worker(
      @Parameter(description = LOCK) @QueryParam("lock") @DefaultValue("synchronized") String lock,
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("50") long ms) {
    return service.block(Mode.WORKER, lock, ms);
  }

  @GET
  @Path("virtual/pinning")
  @RunOnVirtualThread
  @Operation(summary = "Block holding a lock, on a virtual thread")
  public PinningResult virtual(
      @Parameter(description = LOCK) @QueryParam("lock") @DefaultValue("synchronized") String lock,
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("50") long ms) {
    return service.block(Mode.VIRTUAL, lock, ms);
  }

  @GET
  @Path("virtual-loop/pinning")
  @Operation(summary = "Block holding a lock, on a virtual thread carried by its event loop")
  public Uni<PinningResult> virtualLoop(
      @Parameter(description = LOCK) @QueryParam("lock") @DefaultValue("synchronized") String lock,
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("50") long ms) {
    return loops.call(() -> service.block(Mode.VIRTUAL_LOOP, lock, ms));
  }
}
