package dev.loomlab.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.vertx.core.http.HttpHeaders;
import io.vertx.core.http.HttpServerRequest;
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
}
