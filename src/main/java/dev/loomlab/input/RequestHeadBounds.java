package dev.loomlab.input;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loomlab.problem.ProblemResponses;
import dev.loomlab.problem.ProblemType;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.Map;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The first door of every request: a request line longer than {@link InputConfig#maxRequestLine()}
 * gets 414, headers larger than {@link InputConfig#maxHeaderBytes()} get 431, both with a problem
 * document, before the body is read or a route runs. (Vert.x answers past its own, higher limits
 * with a bare status; this door answers the whole range a client plausibly sends.)
 */
@ApplicationScoped
public class RequestHeadBounds {

  /** Runs first, before {@link BodyAdmission}. */
  static final int ORDER = Integer.MIN_VALUE;

  private final int maxLine;
  private final int maxHeaderBytes;
  private final ObjectMapper json;

  RequestHeadBounds(
      InputConfig config,
      ObjectMapper json,
      @ConfigProperty(name = "quarkus.http.limits.max-initial-line-length") int vertxLine,
      @ConfigProperty(name = "quarkus.http.limits.max-header-size") MemorySize vertxHeaders) {
    this.maxLine = config.maxRequestLine();
    this.maxHeaderBytes = config.maxHeaderBytes();
    this.json = json;
    // Vert.x must read past these bounds, or it answers first, without a problem document.
    if (maxLine >= vertxLine || maxHeaderBytes >= vertxHeaders.asLongValue()) {
      throw new IllegalStateException(
          "loomlab.input.max-request-line and max-header-bytes must stay under"
              + " quarkus.http.limits.max-initial-line-length and max-header-size ("
              + maxLine
              + " vs "
              + vertxLine
              + ", "
              + maxHeaderBytes
              + " vs "
              + vertxHeaders.asLongValue()
              + ")");
    }
  }

  void route(@Observes Router router) {
    router.route().order(ORDER).handler(this::check);
  }

  private void check(RoutingContext ctx) {
    HttpServerRequest request = ctx.request();
    int line = lineLength(request);
    if (line > maxLine) {
      refuse(
          request,
          414,
          "the request line has "
              + line
              + " characters, over loomlab.input.max-request-line ("
              + maxLine
              + "); nothing was read");
      return;
    }
    long headers = headerBytes(request);
    if (headers > maxHeaderBytes) {
      refuse(
          request,
          431,
          "the headers take "
              + headers
              + " bytes, over loomlab.input.max-header-bytes ("
              + maxHeaderBytes
              + "); nothing was read");
      return;
    }
    ctx.next();
  }

  /** {@code METHOD SP request-target SP HTTP/x.y}, as it came over the wire. */
  private static int lineLength(HttpServerRequest request) {
    return request.method().name().length() + 1 + request.uri().length() + 1 + "HTTP/1.1".length();
  }

  /** Each header's name and value with its separator, as HTTP/1 counts them. */
  private static long headerBytes(HttpServerRequest request) {
    long bytes = 0;
    for (Map.Entry<String, String> header : request.headers()) {
      bytes += header.getKey().length() + 2L + header.getValue().length();
    }
    return bytes;
  }

  /** The answer, then an HTTP/1 connection closed (what follows the head is not read). */
  private void refuse(HttpServerRequest request, int status, String detail) {
    String problem =
        ProblemResponses.encoded(json, ProblemType.REQUEST_HEAD_TOO_LARGE, status, detail, request);
    ProblemResponses.closing(request, status)
        .end(problem)
        .onComplete(done -> ProblemResponses.closeConnection(request));
  }
}
