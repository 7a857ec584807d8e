package dev.loomlab.ingest.grpc;

import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.rpc.BadRequest;
import com.google.rpc.ErrorInfo;
import com.google.rpc.RetryInfo;
import dev.loomlab.ingest.grpc.v1.ChunkAck;
import io.restassured.RestAssured;
import io.vertx.core.MultiMap;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpClientRequest;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpVersion;
import io.vertx.core.http.RequestOptions;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A gRPC client at the wire: HTTP/2 without TLS (prior knowledge), length-prefixed messages written
 * as the test chooses (whole, cut in half, or not protobuf at all), acknowledgements read as they
 * arrive, and the call's status with its {@code google.rpc.Status} details. Lower than a generated
 * stub on purpose: a stub cannot send half a message.
 */
public final class StreamClient implements AutoCloseable {

  /** Generous: the bound is on a wait for the service, not the thing measured. */
  static final Duration PATIENCE = Duration.ofSeconds(60);

  private final Vertx vertx = Vertx.vertx();
  private final HttpClient http =
      vertx.createHttpClient(
          new HttpClientOptions()
              .setProtocolVersion(HttpVersion.HTTP_2)
              .setHttp2ClearTextUpgrade(false));

  /** Opens a call of {@code method} ("WriteRecruits") with {@code metadata} as its headers. */
  public Call open(String method, Map<String, String> metadata) throws Exception {
    RequestOptions options =
        new RequestOptions()
            .setMethod(HttpMethod.POST)
            // The application's port, known once Quarkus has started it for the test.
            .setHost("127.0.0.1")
            .setPort(RestAssured.port)
            .setURI("/loomlab.ingest.v1.Ingest/" + method)
            .putHeader("content-type", "application/grpc")
            .putHeader("te", "trailers");
    metadata.forEach(options::putHeader);
    HttpClientRequest request = await(http.request(options).toCompletionStage());
    // A body of unknown length (HTTP/2 frames it; Vert.x asks for this all the same).
    request.setChunked(true);
    Call call = new Call(request);
    request
        .response()
        .onSuccess(call::receive)
        .onFailure(e -> call.outcome.completeExceptionally(e));
    await(request.sendHead().toCompletionStage());
    return call;
  }

  /** Writes every chunk, ends the call, and waits for its outcome. */
  public Outcome stream(String method, Map<String, String> metadata, List<? extends Message> chunks)
      throws Exception {
    Call call = open(method, metadata);
    for (Message chunk : chunks) {
      call.send(chunk);
    }
    call.end();
    return call.outcome();
  }

  public static Buffer frame(byte[] message) {
    return Buffer.buffer().appendByte((byte) 0).appendInt(message.length).appendBytes(message);
  }

  private static <T> T await(java.util.concurrent.CompletionStage<T> stage) throws Exception {
    return stage.toCompletableFuture().get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
  }

  @Override
  public void close() {
    vertx.close().toCompletionStage().toCompletableFuture().join();
  }

  /** One open call. */
  public static final class Call {
    private final HttpClientRequest request;
    private final BlockingQueue<ChunkAck> acks = new LinkedBlockingQueue<>();
    private final List<ChunkAck> received = new ArrayList<>();
    private final CompletableFuture<Outcome> outcome = new CompletableFuture<>();
    private Buffer pending = Buffer.buffer();

    private Call(HttpClientRequest request) {
      this.request = request;
    }

    public void send(Message chunk) throws Exception {
      sendRaw(frame(chunk.toByteArray()));
    }

    public void sendRaw(Buffer bytes) throws Exception {
      written(request.write(bytes));
    }

    /**
     * Sends {@code bytes} and ends the call without waiting: the future completes when the whole
     * upload is written, and fails if the server stops it first.
     */
    public CompletableFuture<Void> upload(Buffer bytes) {
      try {
        return request.end(bytes).toCompletionStage().toCompletableFuture();
      } catch (RuntimeException alreadyReset) {
        return CompletableFuture.failedFuture(alreadyReset);
      }
    }

    public void end() throws Exception {
      written(request.end());
    }

    /**
     * Waits for a write. One that fails because the server answered and then reset the stream (RFC
     * 9113 §8.1: the client is to send no more) is no failure: the answer is the call's outcome.
     */
    private void written(io.vertx.core.Future<Void> write) throws Exception {
      try {
        await(write.toCompletionStage());
      } catch (ExecutionException e) {
        if (!outcome.isDone()) {
          throw e;
        }
      }
    }

    /** Resets the stream (RST_STREAM CANCEL), as a client that goes away does. */
    public void cut() {
      request.reset(8);
    }

    /** The next acknowledgement; fails if the call ends or none comes within the patience. */
    public ChunkAck nextAck() throws Exception {
      ChunkAck ack = acks.poll(PATIENCE.toSeconds(), TimeUnit.SECONDS);
      if (ack == null) {
        throw new AssertionError(
            "no acknowledgement within " + PATIENCE + "; outcome: " + outcome.getNow(null));
      }
      return ack;
    }

    public Outcome outcome() throws Exception {
      return outcome.get(PATIENCE.toSeconds(), TimeUnit.SECONDS);
    }

    private void receive(io.vertx.core.http.HttpClientResponse response) {
      response.handler(this::data);
      response.exceptionHandler(outcome::completeExceptionally);
      response.endHandler(
          v -> {
            // A call that fails before any message answers with its status in the headers.
            MultiMap status =
                response.trailers().contains("grpc-status")
                    ? response.trailers()
                    : response.headers();
            outcome.complete(Outcome.of(response.statusCode(), status, received));
          });
    }

    private void data(Buffer data) {
      pending = pending.appendBuffer(data);
      while (pending.length() >= 5 && pending.length() >= 5 + pending.getInt(1)) {
        int length = pending.getInt(1);
        byte[] message = pending.getBytes(5, 5 + length);
        pending = pending.getBuffer(5 + length, pending.length());
        try {
          ChunkAck ack = ChunkAck.parseFrom(message);
          received.add(ack);
          acks.add(ack);
        } catch (InvalidProtocolBufferException e) {
          outcome.completeExceptionally(e);
        }
      }
    }
  }

  /**
   * How a call ended.
   *
   * @param httpStatus always 200 for gRPC
   * @param code the gRPC status code (0 OK, 3 INVALID_ARGUMENT, 8 RESOURCE_EXHAUSTED, 13 INTERNAL,
   *     14 UNAVAILABLE)
   * @param message grpc-message, decoded
   * @param info the ErrorInfo detail, or null
   * @param badRequest the BadRequest detail, or null
   * @param retry the RetryInfo detail, or null
   * @param acks every acknowledgement received
   */
  public record Outcome(
      int httpStatus,
      int code,
      String message,
      ErrorInfo info,
      BadRequest badRequest,
      RetryInfo retry,
      List<ChunkAck> acks) {

    static Outcome of(int httpStatus, MultiMap status, List<ChunkAck> acks) {
      String code = status.get("grpc-status");
      String message = status.get("grpc-message");
      ErrorInfo info = null;
      BadRequest bad = null;
      RetryInfo retry = null;
      String details = status.get("grpc-status-details-bin");
      if (details != null) {
        try {
          for (var any :
              com.google.rpc.Status.parseFrom(Base64.getDecoder().decode(details))
                  .getDetailsList()) {
            if (any.is(ErrorInfo.class)) {
              info = any.unpack(ErrorInfo.class);
            } else if (any.is(BadRequest.class)) {
              bad = any.unpack(BadRequest.class);
            } else if (any.is(RetryInfo.class)) {
              retry = any.unpack(RetryInfo.class);
            }
          }
        } catch (InvalidProtocolBufferException e) {
          throw new AssertionError("grpc-status-details-bin is not a google.rpc.Status", e);
        }
      }
      return new Outcome(
          httpStatus,
          code == null ? -1 : Integer.parseInt(code),
          message == null
              ? null
              : URLDecoder.decode(message.replace("+", "%2B"), StandardCharsets.UTF_8),
          info,
          bad,
          retry,
          List.copyOf(acks));
    }

    /** The problem type URI the ErrorInfo carries, or null. */
    public String type() {
      return info == null ? null : info.getMetadataOrDefault("type", null);
    }

    public List<String> fields() {
      return badRequest == null
          ? List.of()
          : badRequest.getFieldViolationsList().stream()
              .map(BadRequest.FieldViolation::getField)
              .toList();
    }
  }
}
