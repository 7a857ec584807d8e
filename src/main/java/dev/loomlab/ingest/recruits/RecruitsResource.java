package dev.loomlab.ingest.recruits;

import dev.loomlab.execution.LoopCarriers;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudgeted;
import dev.loomlab.ingest.BatchResult;
import dev.loomlab.ingest.IngestService;
import dev.loomlab.ingest.ReactiveIngestService;
import dev.loomlab.ingest.WriteStrategy;
import io.smallrye.common.annotation.Blocking;
import io.smallrye.common.annotation.RunOnVirtualThread;
import io.smallrye.mutiny.Uni;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.eclipse.microprofile.openapi.annotations.Operation;
import org.eclipse.microprofile.openapi.annotations.parameters.Parameter;
import org.eclipse.microprofile.openapi.annotations.responses.APIResponse;
import org.eclipse.microprofile.openapi.annotations.tags.Tag;

/**
 * {@code /api/{mode}/recruits}: chunked upserts into four tables, and reading one back, through the
 * ingest engine every domain shares.
 */
@Path("/api")
@WaitBudgeted
@Produces(MediaType.APPLICATION_JSON)
@Tag(name = "recruits", description = "Seed D: chunked writes to a parent and three child tables")
@APIResponse(
    responseCode = "500",
    description = "Partial write (parallel): the failed tables are listed; replay the same chunk")
@APIResponse(
    responseCode = "503",
    description = "Overloaded, database unavailable or write conflict (Retry-After)")
public class RecruitsResource {

  private static final String WRITES =
      "sequential (one transaction), parallel (parent, then three children at once) or copy (the COPY anchor)";
  private static final String REACTIVE_WRITES =
      "sequential (one transaction) or parallel (parent, then three children at once); copy has"
          + " no reactive form";

  private final IngestService ingest;
  private final ReactiveIngestService reactiveIngest;
  private final RecruitDomain domain;
  private final LoopCarriers loops;

  RecruitsResource(
      IngestService ingest,
      ReactiveIngestService reactiveIngest,
      RecruitDomain domain,
      LoopCarriers loops) {
    this.loops = loops;
    this.ingest = ingest;
    this.reactiveIngest = reactiveIngest;
    this.domain = domain;
  }

  @POST
  @Path("worker/recruits/batch")
  @Consumes(MediaType.APPLICATION_JSON)
  @Blocking
  @Operation(summary = "Upsert a chunk of recruits on a worker thread")
  public BatchResult workerBatch(
      @Parameter(description = WRITES) @QueryParam("writes") @DefaultValue("sequential")
          WriteStrategy writes,
      List<RecruitInput> recruits) {
    return ingest.batch(domain, Mode.WORKER, writes, recruits);
  }

  @POST
  @Path("virtual/recruits/batch")
  @Consumes(MediaType.APPLICATION_JSON)
  @RunOnVirtualThread
  @Operation(summary = "Upsert a chunk of recruits on a virtual thread")
  public BatchResult virtualBatch(
      @Parameter(description = WRITES) @QueryParam("writes") @DefaultValue("sequential")
          WriteStrategy writes,
      List<RecruitInput> recruits) {
    return ingest.batch(domain, Mode.VIRTUAL, writes, recruits);
  }

  @POST
  @Path("virtual-loop/recruits/batch")
  @Consumes(MediaType.APPLICATION_JSON)
  @Operation(summary = "Upsert a chunk of recruits on a virtual thread carried by its event loop")
  public Uni<BatchResult> virtualLoopBatch(
      @Parameter(description = WRITES) @QueryParam("writes") @DefaultValue("sequential")
          WriteStrategy writes,
      List<RecruitInput> recruits) {
    return loops.call(() -> ingest.batch(domain, Mode.VIRTUAL_LOOP, writes, recruits));
  }

  @POST
  @Path("reactive/recruits/batch")
  @Consumes(MediaType.APPLICATION_JSON)
  @Operation(
      summary =
          "Upsert a chunk of recruits from the event loop, through the reactive client (no copy)")
  public Uni<BatchResult> reactiveBatch(
      @Parameter(description = REACTIVE_WRITES) @QueryParam("writes") @DefaultValue("sequential")
          WriteStrategy writes,
      List<RecruitInput> recruits) {
    return reactiveIngest.batch(domain, writes, recruits);
  }

  @GET
  @Path("worker/recruits/{id}")
  @Blocking
  @Operation(summary = "A stored recruit with its skills, description and embedding dimension")
  public RecruitView workerGet(@PathParam("id") long id) {
    return ingest.find(domain, id);
  }

  @GET
  @Path("virtual/recruits/{id}")
  @RunOnVirtualThread
  @Operation(summary = "A stored recruit with its skills, description and embedding dimension")
  public RecruitView virtualGet(@PathParam("id") long id) {
    return ingest.find(domain, id);
  }

  @GET
  @Path("virtual-loop/recruits/{id}")
  @Operation(
      summary =
          "A stored recruit with its skills, description and embedding dimension, read on a virtual thread carried by its event loop")
  public Uni<RecruitView> virtualLoopGet(@PathParam("id") long id) {
    return loops.call(() -> ingest.find(domain, id));
  }
}
