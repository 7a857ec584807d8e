package dev.loomlab.buffers;

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

/** {@code GET /api/{mode}/buffers}: encode into a scratch buffer from {@code cache}, then wait. */
@Path("/api")
@WaitBudgeted
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "buffers", description = "A per-thread cache against a shared pool, per mode")
public class BuffersResource {

  private static final String CACHE = "thread (a ThreadLocal, as libraries cache) or pool (shared)";
  private static final String SEED = "The number the encoded bytes derive from";
  private static final String WAIT = "Milliseconds to wait, 0..loomlab.buffers.max-wait-ms (10000)";

  private final BuffersService service;
  private final LoopCarriers loops;

  BuffersResource(BuffersService service, LoopCarriers loops) {
    this.loops = loops;
    this.service = service;
  }

  @GET
  @Path("worker/buffers")
  @Blocking
  @Operation(summary = "Encode then wait, on a worker-pool platform thread")
  public BuffersResult worker(
      @Parameter(description = CACHE) @QueryParam("cache") String cache,
      @Parameter(description = SEED) @QueryParam("seed") @DefaultValue("1") long seed,
      @Parameter(description = WAIT) @QueryParam("wait-ms") @DefaultValue("100") long waitMs) {
    return service.run(Mode.WORKER, BuffersService.cache(cache), seed, waitMs);
  }

  @GET
  @Path("virtual/buffers")
  @RunOnVirtualThread
  @Operation(summary = "Encode then wait, on a virtual thread")
  public BuffersResult virtual(
      @Parameter(description = CACHE) @QueryParam("cache") String cache,
      @Parameter(description = SEED) @QueryParam("seed") @DefaultValue("1") long seed,
      @Parameter(description = WAIT) @QueryParam("wait-ms") @DefaultValue("100") long waitMs) {
    return service.run(Mode.VIRTUAL, BuffersService.cache(cache), seed, waitMs);
  }

  @GET
  @Path("virtual-loop/buffers")
  @Operation(summary = "Encode then wait, on a virtual thread carried by its event loop")
  public Uni<BuffersResult> virtualLoop(
      @Parameter(description = CACHE) @QueryParam("cache") String cache,
      @Parameter(description = SEED) @QueryParam("seed") @DefaultValue("1") long seed,
      @Parameter(description = WAIT) @QueryParam("wait-ms") @DefaultValue("100") long waitMs) {
    return loops.call(
        () -> service.run(Mode.VIRTUAL_LOOP, BuffersService.cache(cache), seed, waitMs));
  }

  @GET
  @Path("reactive/buffers")
  @Operation(summary = "Encode on the event loop, then an event-loop timer")
  public Uni<BuffersResult> reactive(
      @Parameter(description = CACHE) @QueryParam("cache") String cache,
      @Parameter(description = SEED) @QueryParam("seed") @DefaultValue("1") long seed,
      @Parameter(description = WAIT) @QueryParam("wait-ms") @DefaultValue("100") long waitMs) {
    return service.onEventLoop(BuffersService.cache(cache), seed, waitMs);
  }
}
