package dev.loomlab.ingest.grpc;

import com.google.protobuf.Any;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.loomlab.problem.Problem;
import dev.loomlab.problem.ProblemException;
import dev.loomlab.problem.ProblemType;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.server.GrpcServerResponse;
import java.util.Base64;

/**
 * A problem as a gRPC status: the code its type maps to, its detail as the message, and a {@code
 * google.rpc.Status} in {@code grpc-status-details-bin} whose {@code ErrorInfo} carries the same
 * problem type URI as the HTTP answers ({@code ingest.proto} documents the mapping).
 */
final class GrpcProblems {

  static final String ERROR_DOMAIN = "loomlab.dev";
  private static final String DETAILS = "grpc-status-details-bin";

  private GrpcProblems() {}

  static GrpcStatus statusOf(ProblemType type) {
    return switch (type) {
      case INVALID_INPUT -> GrpcStatus.INVALID_ARGUMENT;
      case NOT_FOUND -> GrpcStatus.NOT_FOUND;
      case PAYLOAD_TOO_LARGE, REQUEST_HEAD_TOO_LARGE -> GrpcStatus.RESOURCE_EXHAUSTED;
      case UNSUPPORTED_REQUEST, NOT_IMPLEMENTED -> GrpcStatus.UNIMPLEMENTED;
      case OVERLOADED, DATABASE_UNAVAILABLE, WRITE_CONFLICT, DEPENDENCY_FAILED ->
          GrpcStatus.UNAVAILABLE;
      case PARTIAL_WRITE, PARTIAL_WRITE_REFUSED, DATABASE_ERROR, INTERNAL_ERROR ->
          GrpcStatus.INTERNAL;
    };
  }

  /** Ends {@code response} with the problem's status; {@code sequence} is the failed chunk's. */
  static void end(GrpcServerResponse<?, ?> response, ProblemException p, Long sequence) {
    end(response, statusOf(p.type()), p, sequence);
  }

  static void end(
      GrpcServerResponse<?, ?> response, GrpcStatus status, ProblemException p, Long sequence) {
    ErrorInfo.Builder info =
        ErrorInfo.newBuilder()
            .setReason(p.type().name())
            .setDomain(ERROR_DOMAIN)
            .putMetadata("type", p.type().uri());
    if (sequence != null) {
      info.putMetadata("sequence", Long.toUnsignedString(sequence));
    }
    if (!p.failed().isEmpty()) {
      info.putMetadata("tables", String.join(",", p.failed()));
    }
    com.google.rpc.Status.Builder details =
        com.google.rpc.Status.newBuilder()
            .setCode(status.code)
            .setMessage(p.getMessage())
            .addDetails(Any.pack(info.build()));
    if (!p.violations().isEmpty()) {
      BadRequest.Builder bad = BadRequest.newBuilder();
      for (Problem.Violation v : p.violations()) {
        bad.addFieldViolationsBuilder().setField(v.field()).setDescription(v.message());
      }
      details.addDetails(Any.pack(bad.build()));
    }
    String retryAfter = p.headers().get("Retry-After");
    if (retryAfter != null) {
      details.addDetails(
          Any.pack(
              RetryInfo.newBuilder()
                  .setRetryDelay(
                      com.google.protobuf.Duration.newBuilder()
                          .setSeconds(Long.parseLong(retryAfter)))
                  .build()));
    }
    response
        .status(status)
        .statusMessage(p.getMessage())
        .trailers()
        .set(
            DETAILS,
            Base64.getEncoder().withoutPadding().encodeToString(details.build().toByteArray()));
    response.end();
  }
}
