package dev.loomlab.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.core.http.HttpVersion;
import java.util.List;

/** Problem answers from Vert.x routes, which answer before the REST layer and its mappers. */
public final class ProblemResponses {

  private ProblemResponses() {}

  /**
   * The problem document of {@code type}, {@code status} and {@code detail} for {@code request}.
   */
  public static String encoded(
      ObjectMapper json, ProblemType type, int status, String detail, HttpServerRequest request) {
    try {
      return json.writeValueAsString(
          new Problem(
              type.uri(),
              type.title(),
              status,
              detail,
              request.path(),
              List.of(),
              List.of(),
              null));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException(e);
    }
  }

  /** Ends {@code request}'s response with that problem. */
  public static void send(
      HttpServerRequest request, ObjectMapper json, ProblemType type, int status, String detail) {
    request
        .response()
        .setStatusCode(status)
        .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE)
        .end(encoded(json, type, status, detail, request));
  }

  /**
   * The response of a problem that ends the exchange before its body is read: the status, the
   * problem media type and, on HTTP/1, {@code Connection: close}. Close with {@link
   * #closeConnection} once it is sent (or the body drained).
   */
  public static HttpServerResponse closing(HttpServerRequest request, int status) {
    HttpServerResponse response =
        request
            .response()
            .setStatusCode(status)
            .putHeader(HttpHeaders.CONTENT_TYPE, Problem.MEDIA_TYPE);
    if (request.version() != HttpVersion.HTTP_2) {
      response.putHeader(HttpHeaders.CONNECTION, "close");
    }
    return response;
  }

  /** Closes an HTTP/1 connection; an HTTP/2 stream ends with its response. */
  public static void closeConnection(HttpServerRequest request) {
    if (request.version() != HttpVersion.HTTP_2) {
      request.connection().close();
    }
  }
}
