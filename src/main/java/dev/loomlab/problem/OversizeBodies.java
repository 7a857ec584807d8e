package dev.loomlab.problem;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.runtime.configuration.MemorySize;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import io.vertx.ext.web.Router;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.util.List;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A body whose declared length is over {@code quarkus.http.limits.max-body-size} is answered 413
 * with a problem document before a byte of it is read (Quarkus' own 413 has no body); the
 * connection is closed after the answer, as the unread body would otherwise follow. A body sent in
 * chunks without a length meets the same bound in Quarkus as it is read.
 */
@ApplicationScoped
class OversizeBodies {

  private final long maxBodySize;
  private final ObjectMapper json;

  OversizeBodies(
      @ConfigProperty(name = "quarkus.http.limits.max-body-size") MemorySize maxBodySize,
      ObjectMapper json) {
    this.maxBodySize = maxBodySize.asLongValue();
    this.json = json;
  }

  void route(@Observes Router router) {
    router
        .route()
        .order(Integer.MIN_VALUE)
        .handler(
            ctx -> {
              String length = ctx.request().getHeader(HttpHeaders.CONTENT_LENGTH);
              if (length != null && declaredOver(length)) {
                String path = ctx.request().path();
                Problem problem =
                    new Problem(
                        ProblemType.PAYLOAD_TOO_LARGE.uri(),
                        ProblemType.PAYLOAD_TOO_LARGE.title(),
                        413,
                        "the body declares "
                            + length
                            + " bytes, over quarkus.http.limits.max-body-size ("
                            + maxBodySize
                            + " bytes); nothing was read or written",
                        path,
                        List.of(),
                        List.of(),
                        null);
                refuse(ctx.request(), encoded(problem));
              } else {
                ctx.next();
              }
            });
  }

  /**
   * Answers 413 at once; the body is read on and dropped (a client that writes all of its body
   * before it reads would otherwise see a broken pipe, not the answer), then an HTTP/1 connection
   * is closed. A body declared over four times the bound is not read on: its connection closes with
   * the answer.
   */
  private void refuse(HttpServerRequest request, String body) {
    boolean http1 = request.version() != HttpVersion.HTTP_2;
    long declared = Long.parseLong(request.getHeader(HttpHeaders.CONTENT_LENGTH).trim());
    HttpServerResponse response =
        request
            .response()
            .setStatusCode(413)
            .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
    if (http1) {
      response.putHeader(HttpHeaders.CONNECTION, "close");
    }
    if (declared > 4 * maxBodySize) {
      response.end(body).onComplete(done -> request.connection().close());
      return;
    }
    request.handler(dropped -> {});
    request.endHandler(
        ended -> {
          if (http1) {
            request.connection().close();
          }
        });
    request.resume();
    response.end(body);
  }

  private boolean declaredOver(String length) {
    try {
      return Long.parseLong(length.trim()) > maxBodySize;
    } catch (NumberFormatException e) {
      return false; // Vert.x refuses a malformed length itself.
    }
  }

  private String encoded(Problem problem) {
    try {
      return json.writeValueAsString(problem);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }
}
