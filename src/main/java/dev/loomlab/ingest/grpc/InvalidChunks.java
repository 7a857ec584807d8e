package dev.loomlab.ingest.grpc;

import dev.loomlab.problem.ProblemException;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.InvalidMessageException;
import io.vertx.grpc.common.MessageSizeOverflowException;
import java.util.List;

/**
 * What a stream answers a message it cannot take: larger than the message bound, crossing a bound
 * the decoder's scan found (records, skills, dimensions), or not a chunk at all (malformed
 * protobuf). Nothing of such a message is written.
 */
final class InvalidChunks {

  private InvalidChunks() {}

  /** The status that ends the stream and the problem it carries. */
  record Refusal(GrpcStatus status, ProblemException problem) {}

  static Refusal refusal(InvalidMessageException e, String noun) {
    if (e instanceof MessageSizeOverflowException) {
      return new Refusal(
          GrpcStatus.RESOURCE_EXHAUSTED,
          ProblemException.badRequest(
              "a chunk message is larger than loomlab.ingest.grpc.max-message-size; nothing of it"
                  + " was written, send smaller chunks",
              List.of()));
    }
    Throwable crossed = crossed(e);
    if (crossed != null) {
      return new Refusal(
          GrpcStatus.INVALID_ARGUMENT,
          ProblemException.badRequest(
              "a chunk crosses a bound: " + crossed.getMessage() + "; nothing of it was written",
              List.of()));
    }
    return new Refusal(
        GrpcStatus.INVALID_ARGUMENT,
        ProblemException.badRequest(
            "a message is not a valid "
                + noun
                + " chunk (malformed protobuf); nothing of it was written",
            List.of()));
  }

  /** The bound a message crossed, found by the decoder's scan, or null. */
  private static Throwable crossed(InvalidMessageException e) {
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof BoundedChunkDecoder.Crossed) {
        return t;
      }
    }
    return null;
  }
}
