package dev.loomlab.db;

import dev.loomlab.execution.Clients;
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
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/** {@code GET /api/{mode}/db/slow}: one pooled connection held {@code ms} by the database. */
@Path("/api")
@WaitBudgeted
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "db", description = "Seed B: the connection pool, not the threads, becomes the limit")
@APIResponse(
    responseCode = "503",
    description =
        "No permit or connection within the bounded wait, or the database is down (Retry-After)")
public class DbResource {

  private static final String MS = "Milliseconds of pg_sleep, 0..loomlab.db.max-ms (10000)";
  private static final String CLIENTS =
      "blocking (JDBC) or, on the virtual mode only, reactive: the virtual thread awaits the"
          + " reactive client";

  private final DbService service;
  private final LoopCarriers loops;

  DbResource(DbService service, LoopCarriers loops) {
    this.loops = loops;
    this.service = service;
  }

  @GET
  @Path("worker/db/slow")
  @Blocking
  @Operation(summary = "Hold a pooled connection ms milliseconds, on a worker thread")
  public DbResult worker(
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("200") long ms,
      @Parameter(description = CLIENTS) @QueryParam("clients") String clients) {
    return service.slowQuery(Mode.WORKER, ms, Clients.of(Mode.WORKER, clients));
  }

  @GET
  @Path("virtual/db/slow")
  @RunOnVirtualThread
  @Operation(summary = "Hold a pooled connection ms milliseconds, on a virtual thread")
  public DbResult virtual(
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("200") long ms,
      @Parameter(description = CLIENTS) @QueryParam("clients") String clients) {
    return service.slowQuery(Mode.VIRTUAL, ms, Clients.of(Mode.VIRTUAL, clients));
  }

  @GET
  @Path("virtual-loop/db/slow")
  @Operation(
      summary =
          "Hold a pooled connection ms milliseconds, on a virtual thread carried by its event loop")
  public Uni<DbResult> virtualLoop(
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("200") long ms,
      @Parameter(description = CLIENTS) @QueryParam("clients") String clients) {
    return loops.call(
        () -> service.slowQuery(Mode.VIRTUAL_LOOP, ms, Clients.of(Mode.VIRTUAL_LOOP, clients)));
  }

  @GET
  @Path("reactive/db/slow")
  @Operation(summary = "Hold a reactive pool connection ms milliseconds, from the event loop")
  public Uni<DbResult> reactive(
      @Parameter(description = MS) @QueryParam("ms") @DefaultValue("200") long ms,
      @Parameter(description = CLIENTS) @QueryParam("clients") String clients) {
    Clients.of(Mode.REACTIVE, clients);
    return service.slowQueryOnEventLoop(ms);
  }
}
