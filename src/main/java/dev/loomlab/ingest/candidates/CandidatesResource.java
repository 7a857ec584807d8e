package dev.loomlab.ingest.candidates;

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
 * {@code /api/{mode}/candidates}: chunked upserts into four tables, and reading one back, through
 * the ingest engine every domain shares.
 */
@Path("/api")
@WaitBudgeted
@Produces(MediaType.APPLICATION_JSON)
@Tag(
    name = "candidates",
    description = "Seed D, its second domain: the same chunked writes for people")
@APIResponse(
    responseCode = "500",
    description = "Partial write (parallel): the failed tables are listed; replay the same chunk")
@APIResponse(
    responseCode = "503",
    description = "Overloaded, database unavailable or write conflict (Retry-After)")
public class CandidatesResource {

  private static final String WRITES =
      "sequential (one transaction), parallel (parent, then three children at once) or copy (the COPY anchor)";
  private static final String REACTIVE_WRITES =
      "sequential (one transaction) or parallel (parent, then three children at once); copy has"
          + " no reactive form";

  private final IngestService ingest;
  private final ReactiveIngestService reactiveIngest;
  private final CandidateDomain domain;
  private final LoopCarriers loops;

  CandidatesResource(
      IngestService ingest,
      ReactiveIngestService reactiveIngest,
      CandidateDomain domain,
      LoopCarriers loops) {
    this.loops = loops;
    this.ingest = ingest;
    this.reactiveIngest = reactiveIngest;
    this.domain = domain;
  }

  @POST
  @Path("worker/candidates/batch")
  @Consumes(MediaType.APPLICATION_JSON)
  @Blocking
  @Operation(summary = "Upsert a chunk of candidates on a worker thread")
  public BatchResult workerBatch(
      @Parameter(description = WRITES) @QueryParam("writes") @DefaultValue("sequential")
          WriteStrategy writes,
      List<CandidateInput> candidates) {
    return ingest.batch(domain, Mode.WORKER, writes, candidates);
  }

  @POST
  @Path("virtual/candidates/batch")
  @Consumes(MediaType.APPLICATION_JSON)
  @RunOnVirtualThread
  @Operation(summary = "Upsert a chunk of candidates on a virtual thread")
  public BatchResult virtualBatch(
      @Parameter(description = WRITES) @QueryParam("writes") @DefaultValue("sequential")
          WriteStrategy writes,
      List<CandidateInput> candidates) {
    return ingest.batch(domain, Mode.VIRTUAL, writes, candidates);
  }

  @POST
  @Path("virtual-loop/candidates/batch")
  @Consumes(MediaType.APPLICATION_JSON)
  @Operation(summary = "Upsert a chunk of candidates on a virtual thread carried by its event loop")
  public Uni<BatchResult> virtualLoopBatch(
      @Parameter(description = WRITES) @QueryParam("writes") @DefaultValue("sequential")
          WriteStrategy writes,
      List<CandidateInput> candidates) {
    return loops.call(() -> ingest.batch(domain, Mode.VIRTUAL_LOOP, writes, candidates));
  }

  @POST
  @Path("reactive/candidates/batch")
  @Consumes(MediaType.APPLICATION_JSON)
  @Operation(
      summary =
          "Upsert a chunk of candidates from the event loop, through the reactive client (no copy)")
  public Uni<BatchResult> reactiveBatch(
      @Parameter(description = REACTIVE_WRITES) @QueryParam("writes") @DefaultValue("sequential")
          WriteStrategy writes,
      List<CandidateInput> candidates) {
    return reactiveIngest.batch(domain, writes, candidates);
  }

  @GET
  @Path("worker/candidates/{id}")
  @Blocking
  @Operation(summary = "A stored candidate with its skills, profile and embedding dimension")
  public CandidateView workerGet(@PathParam("id") long id) {
    return ingest.find(domain, id);
  }

  @GET
  @Path("virtual/candidates/{id}")
  @RunOnVirtualThread
  @Operation(summary = "A stored candidate with its skills, profile and embedding dimension")
  public CandidateView virtualGet(@PathParam("id") long id) {
    return ingest.find(domain, id);
  }

  @GET
  @Path("virtual-loop/candidates/{id}")
  @Operation(
      summary =
          "A stored candidate with its skills, profile and embedding dimension, read on a virtual thread carried by its event loop")
  public Uni<CandidateView> virtualLoopGet(@PathParam("id") long id) {
    return loops.call(() -> ingest.find(domain, id));
  }
}
