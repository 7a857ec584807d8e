package dev.loomlab.ingest.grpc;

import dev.loomlab.execution.RequestThreads;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.ingest.ChunkChecks;
import dev.loomlab.ingest.IngestConfig;
import dev.loomlab.ingest.IngestService;
import dev.loomlab.ingest.candidates.CandidateDomain;
import dev.loomlab.ingest.candidates.CandidateMessages;
import dev.loomlab.ingest.grpc.v1.CandidateChunk;
import dev.loomlab.ingest.grpc.v1.IngestGrpc;
import dev.loomlab.ingest.grpc.v1.RecruitChunk;
import dev.loomlab.ingest.recruits.RecruitDomain;
import dev.loomlab.ingest.recruits.RecruitMessages;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import io.vertx.grpc.server.GrpcServer;
import io.vertx.grpc.server.GrpcServerOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Seed D's gRPC stream of chunks ({@code src/main/proto/ingest.proto}), served by the Vert.x gRPC
 * server on Quarkus' own router and HTTP port (h2c): {@code loomlab.ingest.v1.Ingest/WriteRecruits}
 * and {@code WriteCandidates}, each a {@link ChunkStream} over the ingest engine the REST batches
 * use.
 */
@ApplicationScoped
class IngestGrpcServer {

  private final IngestService ingest;
  private final ChunkChecks checks;
  private final WaitBudgets budgets;
  private final RequestThreads threads;
  private final GrpcStreamMetrics metrics;
  private final IngestConfig config;
  private final RecruitDomain recruits;
  private final CandidateDomain candidates;

  IngestGrpcServer(
      IngestService ingest,
      ChunkChecks checks,
      WaitBudgets budgets,
      RequestThreads threads,
      GrpcStreamMetrics metrics,
      IngestConfig config,
      RecruitDomain recruits,
      CandidateDomain candidates) {
    this.ingest = ingest;
    this.checks = checks;
    this.budgets = budgets;
    this.threads = threads;
    this.metrics = metrics;
    this.config = config;
    this.recruits = recruits;
    this.candidates = candidates;
  }

  void mount(@Observes Router router, Vertx vertx) {
    GrpcServer server =
        GrpcServer.server(
            vertx,
            new GrpcServerOptions()
                .setMaxMessageSize(config.grpc().maxMessageSize().asLongValue()));
    server.callHandler(
        IngestGrpc.getWriteRecruitsMethod(),
        call ->
            new ChunkStream<>(
                    call,
                    recruits,
                    new ChunkStream.Messages<>(RecruitChunk::getSequence, RecruitMessages::records),
                    ingest,
                    checks,
                    budgets,
                    threads,
                    metrics)
                .start());
    server.callHandler(
        IngestGrpc.getWriteCandidatesMethod(),
        call ->
            new ChunkStream<>(
                    call,
                    candidates,
                    new ChunkStream.Messages<>(
                        CandidateChunk::getSequence, CandidateMessages::records),
                    ingest,
                    checks,
                    budgets,
                    threads,
                    metrics)
                .start());
    router.route("/" + IngestGrpc.SERVICE_NAME + "/*").handler(ctx -> server.handle(ctx.request()));
  }
}
