package dev.loomlab.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.Comparator;
import java.util.List;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/** Turns every error the REST layer sees into an {@code application/problem+json} answer. */
public class ProblemMappers {

  private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

  @ServerExceptionMapper
  public Response problem(ProblemException e, UriInfo uri) {
    Problem body =
        new Problem(
            e.type().uri(),
            e.title(),
            e.status(),
            e.getMessage(),
            instance(uri),
            e.violations(),
            e.failed(),
            e.queue());
    Response.ResponseBuilder response =
        Response.status(e.status()).type(Problem.MEDIA_TYPE).entity(body);
    e.headers().forEach(response::header);
    return response.build();
  }

  @ServerExceptionMapper
  public Response invalid(ConstraintViolationException e, UriInfo uri) {
    List<Problem.Violation> violations =
        e.getConstraintViolations().stream()
            .map(v -> new Problem.Violation(field(v), v.getMessage()))
            .sorted(Comparator.comparing(Problem.Violation::field))
            .toList();
    return build(
            ProblemType.INVALID_INPUT,
            400,
            "the request is invalid; nothing was done",
            uri,
            violations)
        .build();
  }

  // MismatchedInputException has a built-in mapper that answers an empty 400; this one is closer.
  @ServerExceptionMapper(priority = jakarta.ws.rs.Priorities.USER - 100)
  public Response mismatchedJson(MismatchedInputException e, UriInfo uri) {
    return unreadableJson(e, uri);
  }

  @ServerExceptionMapper
  public Response unreadableJson(JsonProcessingException e, UriInfo uri) {
    // Malformed JSON or a value of the wrong type ("id": "abc"): say where, nothing was done.
    String where =
        e instanceof MismatchedInputException m && !m.getPath().isEmpty() ? " at " + path(m) : "";
    return build(
            ProblemType.INVALID_INPUT,
            400,
            "unreadable JSON" + where + ": " + e.getOriginalMessage(),
            uri,
            List.of())
        .build();
  }

  @ServerExceptionMapper
  public Response web(WebApplicationException e, UriInfo uri) {
    int status = e.getResponse().getStatus();
    // Framework 4xx (bad parameter conversion, bad JSON, wrong method) keep their status.
    String detail =
        Response.Status.Family.familyOf(status) == Response.Status.Family.CLIENT_ERROR
                && e.getCause() != null
            ? e.getMessage() + ": " + e.getCause().getMessage()
            : e.getMessage();
    return build(typeOf(status), status, detail, uri, List.of()).build();
  }

  /**
   * Errors the framework answers itself without an entity (malformed JSON, 405, 406, 415) get a
   * problem document too.
   */
  @ServerResponseFilter
  public void problemForEmptyErrors(
      ContainerRequestContext request, ContainerResponseContext response) {
    if (response.getStatus() >= 400 && !response.hasEntity()) {
      Response.StatusType status = response.getStatusInfo();
      String path = "/" + request.getUriInfo().getPath().replaceFirst("^/", "");
      ProblemType type = typeOf(status.getStatusCode());
      response.setEntity(
          new Problem(
              type.uri(),
              type.title(),
              status.getStatusCode(),
              status.getReasonPhrase() + " (" + request.getMethod() + " " + path + ")",
              path,
              List.of(),
              List.of(),
              null),
          null,
          jakarta.ws.rs.core.MediaType.valueOf(Problem.MEDIA_TYPE));
    }
  }

  /** A bug: logged in full under an id the client gets, never the exception's class or message. */
  @ServerExceptionMapper
  public Response unexpected(RuntimeException e, UriInfo uri) {
    return problem(ProblemException.unexpected(e, "on " + uri.getPath()), uri);
  }

  /** A problem answer of {@code type}: for mappers elsewhere that know more about an error. */
  public static Response answer(ProblemType type, int status, String detail, UriInfo uri) {
    return build(type, status, detail, uri, List.of()).build();
  }

  /** The type of an error the framework raised with only a status. */
  static ProblemType typeOf(int status) {
    return switch (status) {
      case 400 -> ProblemType.INVALID_INPUT;
      case 404 -> ProblemType.NOT_FOUND;
      case 501 -> ProblemType.NOT_IMPLEMENTED;
      case 503 -> ProblemType.OVERLOADED;
      default -> status < 500 ? ProblemType.UNSUPPORTED_REQUEST : ProblemType.INTERNAL_ERROR;
    };
  }

  private static Response.ResponseBuilder build(
      ProblemType type,
      int status,
      String detail,
      UriInfo uri,
      List<Problem.Violation> violations) {
    Problem body =
        new Problem(
            type.uri(), type.title(), status, detail, instance(uri), violations, List.of(), null);
    return Response.status(status).type(Problem.MEDIA_TYPE).entity(body);
  }

  /** Jackson's path as a client wrote it: "[0].skills[1].level". */
  private static String path(MismatchedInputException e) {
    StringBuilder sb = new StringBuilder();
    for (var ref : e.getPath()) {
      if (ref.getFieldName() != null) {
        sb.append(sb.isEmpty() ? "" : ".").append(ref.getFieldName());
      } else if (ref.getIndex() >= 0) {
        sb.append('[').append(ref.getIndex()).append(']');
      }
    }
    return sb.toString();
  }

  private static String instance(UriInfo uri) {
    return "/" + uri.getPath().replaceFirst("^/", "");
  }

  private static String field(ConstraintViolation<?> v) {
    // "upsert.records[2].id" -> "records[2].id": the Java method name means nothing to a client.
    String path = v.getPropertyPath().toString();
    int dot = path.indexOf('.');
    return dot < 0 ? path : path.substring(dot + 1);
  }
}
