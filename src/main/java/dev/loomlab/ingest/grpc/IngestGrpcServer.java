package dev.loomlab.ingest.grpc;

import dev.loomlab.execution.RequestThreads;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.ingest.IngestConfig;
import dev.loomlab.ingest.IngestService;
import dev.loomlab.ingest.candidates.CandidateDomain;
import dev.loomlab.ingest.candidates.CandidateMessages;
import dev.loomlab.ingest.grpc.v1.CandidateChunk;
import dev.loomlab.ingest.grpc.v1.ChunkAck;
import dev.loomlab.ingest.grpc.v1.IngestGrpc;
import dev.loomlab.ingest.grpc.v1.RecruitChunk;
import dev.loomlab.ingest.recruits.RecruitDomain;
import dev.loomlab.ingest.recruits.RecruitMessages;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.impl.HttpServerRequestInternal;
import io.vertx.ext.web.Router;
import io.vertx.grpc.common.GrpcMessageEncoder;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.ServiceMethod;
import io.vertx.grpc.common.ServiceName;
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

  private static final String ENCODING = "grpc-encoding";

  private final IngestService ingest;
  private final WaitBudgets budgets;
  private final RequestThreads threads;
  private final GrpcStreamMetrics metrics;
  private final IngestConfig config;
  private final RecruitDomain recruits;
  private final CandidateDomain candidates;

  IngestGrpcServer(
      IngestService ingest,
      WaitBudgets budgets,
      RequestThreads threads,
      GrpcStreamMetrics metrics,
      IngestConfig config,
      RecruitDomain recruits,
      CandidateDomain candidates) {
    this.ingest = ingest;
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
        method(
            IngestGrpc.getWriteRecruitsMethod().getBareMethodName(),
            BoundedChunkDecoder.of(RecruitChunk.parser(), RecruitChunk.getDescriptor(), config)),
        call ->
            new ChunkStream<>(
                    call,
                    recruits,
                    new ChunkStream.Messages<>(RecruitChunk::getSequence, RecruitMessages::records),
                    ingest,
                    budgets,
                    threads,
                    metrics,
                    config.grpc().idleTimeout())
                .start());
    server.callHandler(
        method(
            IngestGrpc.getWriteCandidatesMethod().getBareMethodName(),
            BoundedChunkDecoder.of(
                CandidateChunk.parser(), CandidateChunk.getDescriptor(), config)),
        call ->
            new ChunkStream<>(
                    call,
                    candidates,
                    new ChunkStream.Messages<>(
                        CandidateChunk::getSequence, CandidateMessages::records),
                    ingest,
                    budgets,
                    threads,
                    metrics,
                    config.grpc().idleTimeout())
                .start());
    router
        .route("/" + IngestGrpc.SERVICE_NAME + "/*")
        .handler(
            ctx -> {
              if (compressed(ctx.request())) {
                refuseCompressed(ctx.request(), ctx.response());
              } else {
                server.handle(new UncompressedFrames((HttpServerRequestInternal) ctx.request()));
              }
            });
  }

  /** A method of the service whose chunks are decoded by {@code decoder}, acks by protobuf. */
  private static <M> ServiceMethod<M, ChunkAck> method(
      String name, BoundedChunkDecoder<M> decoder) {
    return ServiceMethod.server(
        ServiceName.create(IngestGrpc.SERVICE_NAME), name, GrpcMessageEncoder.encoder(), decoder);
  }

  /**
   * A call whose messages come compressed. The size bound holds for the wire, and a few MB of gzip
   * inflate to gigabytes: the stream takes messages as they are sent and refuses any compression,
   * as gRPC says a server does with an encoding it does not accept.
   */
  private static boolean compressed(HttpServerRequest request) {
    String encoding = request.getHeader(ENCODING);
    return encoding != null && !encoding.equals("identity");
  }

  /**
   * UNIMPLEMENTED with the encodings accepted, in the headers alone (trailers-only). A client still
   * uploading is then told to stop, with RST_STREAM(NO_ERROR) as RFC 9113 §8.1 says of a response
   * complete before its request: else it sends the whole upload for nothing, and a client that
   * waits for its upload's end before the call's can wait on flow control until its own timeout.
   */
  private static void refuseCompressed(HttpServerRequest request, HttpServerResponse response) {
    response
        .setStatusCode(200)
        .putHeader("content-type", "application/grpc")
        .putHeader("grpc-accept-encoding", "identity")
        .putHeader("grpc-status", String.valueOf(GrpcStatus.UNIMPLEMENTED.code))
        .putHeader(
            "grpc-message",
            "compressed messages are not accepted (grpc-encoding identity only); nothing was"
                + " written")
        .end()
        .onComplete(
            sent -> {
              if (!request.isEnded()) {
                response.reset(0); // NO_ERROR
              }
            });
  }
}
