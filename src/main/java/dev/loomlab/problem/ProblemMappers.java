package dev.loomlab.problem;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.Comparator;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/** Turns every error the REST layer sees into an {@code application/problem+json} answer. */
public class ProblemMappers {

  private static final Logger LOG = Logger.getLogger(ProblemMappers.class);
  private static final Pattern MODE_PATH = Pattern.compile("^/?api/([^/]+)/.*");

  @ServerExceptionMapper
  public Response problem(ProblemException e, UriInfo uri) {
    Problem body =
        new Problem(
            e.type(),
            e.title(),
            e.status(),
            e.getMessage(),
            instance(uri),
            e.violations(),
            e.failed());
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
    return build(400, "Bad Request", "the request is invalid; nothing was done", uri, violations)
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
            400,
            "Bad Request",
            "unreadable JSON" + where + ": " + e.getOriginalMessage(),
            uri,
            List.of())
        .build();
  }

  @ServerExceptionMapper
  public Response notFound(NotFoundException e, UriInfo uri) {
    if (e.getCause() != null) {
      // Jakarta REST answers 404 when a path or query parameter cannot be converted (spec 3.2);
      // for a client that sent "ms=abc" the truth is a bad request.
      String detail = "a parameter could not be read: " + e.getCause().getMessage();
      return build(400, "Bad Request", detail, uri, List.of()).build();
    }
    Matcher m = MODE_PATH.matcher(uri.getPath());
    String detail =
        m.matches() && !m.group(1).equals("worker") && !m.group(1).equals("virtual")
            ? "unknown mode '" + m.group(1) + "': use 'worker' or 'virtual'"
            : "no resource at " + uri.getPath();
    return build(404, "Not Found", detail, uri, List.of()).build();
  }

  @ServerExceptionMapper
  public Response web(WebApplicationException e, UriInfo uri) {
    int status = e.getResponse().getStatus();
    Response.Status.Family family = Response.Status.Family.familyOf(status);
    // Framework 4xx (bad parameter conversion, bad JSON, wrong method) keep their status.
    String title =
        Response.Status.fromStatusCode(status) == null
            ? "HTTP " + status
            : Response.Status.fromStatusCode(status).getReasonPhrase();
    String detail =
        family == Response.Status.Family.CLIENT_ERROR && e.getCause() != null
            ? e.getMessage() + ": " + e.getCause().getMessage()
            : e.getMessage();
    return build(status, title, detail, uri, List.of()).build();
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
      response.setEntity(
          new Problem(
              "about:blank",
              status.getReasonPhrase(),
              status.getStatusCode(),
              status.getReasonPhrase() + " (" + request.getMethod() + " " + path + ")",
              path,
              List.of(),
              List.of()),
          null,
          jakarta.ws.rs.core.MediaType.valueOf(Problem.MEDIA_TYPE));
    }
  }

  @ServerExceptionMapper
  public Response unexpected(RuntimeException e, UriInfo uri) {
    LOG.errorf(e, "unexpected error on %s", uri.getPath());
    return build(500, "Internal Server Error", e.getClass().getSimpleName(), uri, List.of())
        .build();
  }

  private static Response.ResponseBuilder build(
      int status, String title, String detail, UriInfo uri, List<Problem.Violation> violations) {
    Problem body =
        new Problem("about:blank", title, status, detail, instance(uri), violations, List.of());
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
