package dev.loomlab.input;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loomlab.execution.ExecutionConfig;
import dev.loomlab.problem.ProblemResponses;
import dev.loomlab.problem.ProblemType;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.concurrent.atomic.AtomicLong;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The door every request body passes, before any of it is read. A body declared over {@code
 * quarkus.http.limits.max-body-size} is answered 413 with a problem document (Quarkus' own 413 has
 * none). Every other body is admitted against the heap the bodies in flight may take ({@link
 * InputConfig#bodyHeap()}), reckoned at {@link InputConfig#bodyHeapFactor()} times its length (the
 * bytes, then what parsing builds of them): past it the request waits within {@code
 * loomlab.execution.max-wait}, then gets 503 {@code overloaded}. The heap is given back when the
 * answer is sent or the connection goes. gRPC streams are bounded per message instead.
 */
@ApplicationScoped
public class BodyAdmission {

  private static final long POLL_MS = 10;

  private final long maxBodySize;
  private final long heap;
  private final int factor;
  private final long maxWaitMs;
  private final int retryAfter;
  private final ObjectMapper json;
  private final Vertx vertx;
  private final AtomicLong inFlight = new AtomicLong();

  BodyAdmission(
      @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBodySize,
      InputConfig config,
      ExecutionConfig execution,
      ObjectMapper json,
      Vertx vertx) {
    this.maxBodySize = maxBodySize.asLongValue();
    this.heap =
        config.bodyHeap().map(MemorySize::asLongValue).orElse(Runtime.getRuntime().maxMemory() / 4);
    this.factor = config.bodyHeapFactor();
    this.maxWaitMs = execution.maxWait().toMillis();
    this.retryAfter = execution.retryAfter();
    this.json = json;
    this.vertx = vertx;
  }

  /** The heap all bodies in flight may take, in bytes ({@code /api/info}). */
  public long heap() {
    return heap;
  }

  void route(@Observes Router router) {
    router.route().order(RequestHeadBounds.ORDER + 1).handler(this::admit);
  }

  private void admit(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    long length = declared(request);
    if (length > maxBodySize) {
      refuseOversize(request, length);
      return;
    }
    long cost = length < 0 ? 0 : length * factor;
    if (cost == 0 || isGrpc(request)) {
      ctx.next();
      return;
    }
    if (tryTake(cost)) {
      admitted(ctx, cost);
      return;
    }
    request.pause();
    long deadline = System.nanoTime() + maxWaitMs * 1_000_000;
    vertx.setPeriodic(
        POLL_MS,
        timer -> {
          if (tryTake(cost)) {
            vertx.cancelTimer(timer);
            admitted(ctx, cost);
            request.resume();
          } else if (System.nanoTime() > deadline) {
            vertx.cancelTimer(timer);
            refuseOverloaded(request);
          }
        });
  }

  private void admitted(RoutingContext ctx, long cost) {
    ctx.addEndHandler(ended -> inFlight.addAndGet(-cost));
    ctx.next();
  }

  private boolean tryTake(long cost) {
    while (true) {
      long now = inFlight.get();
      // One body alone is always admitted: the size bound holds it.
      if (now > 0 && now + cost > heap) {
        return false;
      }
      if (inFlight.compareAndSet(now, now + cost)) {
        return true;
      }
    }
  }

  /** The body's declared length; a body in chunks counts as the largest allowed; -1: none. */
  private long declared(HttpServerRequest request) {
    String length = request.getHeader(HttpHeaders.CONTENT_LENGTH);
    if (length != null) {
      try {
        return Long.parseLong(length.trim());
      } catch (NumberFormatException e) {
        return -1; // Vert.x refuses a malformed length itself.
      }
    }
    boolean chunked = "chunked".equalsIgnoreCase(request.getHeader(HttpHeaders.TRANSFER_ENCODING));
    boolean h2Body = request.version() == HttpVersion.HTTP_2 && hasBodyMethod(request.method());
    return chunked || h2Body ? maxBodySize : -1;
  }

  private static boolean hasBodyMethod(HttpMethod method) {
    return method == HttpMethod.POST || method == HttpMethod.PUT || method == HttpMethod.PATCH;
  }

  private static boolean isGrpc(HttpServerRequest request) {
    String type = request.getHeader(HttpHeaders.CONTENT_TYPE);
    return type != null && type.startsWith("application/grpc");
  }

  private void refuseOverloaded(HttpServerRequest request) {
    String problem =
        ProblemResponses.encoded(
            json,
            ProblemType.OVERLOADED,
            503,
            "the bodies in flight hold the heap they may take (loomlab.input.body-heap) past"
                + " loomlab.execution.max-wait; nothing was read or written, retry later",
            request);
    request.response().putHeader("Retry-After", String.valueOf(retryAfter));
    answer(request, 503, problem, 0);
  }

  /**
   * 413 at once; the body is read on and dropped (a client that writes all of its body before it
   * reads would otherwise see a broken pipe, not the answer), then an HTTP/1 connection is closed.
   * A body declared over four times the bound is not read on: its connection closes with the
   * answer.
   */
  private void refuseOversize(HttpServerRequest request, long length) {
    String problem =
        ProblemResponses.encoded(
            json,
            ProblemType.PAYLOAD_TOO_LARGE,
            413,
            "the body declares "
                + length
                + " bytes, over quarkus.http.limits.max-body-size ("
                + maxBodySize
                + " bytes); nothing was read or written",
            request);
    answer(request, 413, problem, length);
  }

  private void answer(HttpServerRequest request, int status, String body, long drain) {
    HttpServerResponse response = ProblemResponses.closing(request, status);
    if (drain > 4 * maxBodySize || request.version() == HttpVersion.HTTP_2) {
      response.end(body).onComplete(done -> ProblemResponses.closeConnection(request));
      return;
    }
    request.handler(dropped -> {});
    request.endHandler(ended -> ProblemResponses.closeConnection(request));
    request.resume();
    response.end(body);
  }
}
