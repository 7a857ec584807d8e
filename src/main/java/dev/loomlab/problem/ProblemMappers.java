package dev.loomlab.problem;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonPointer;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.exc.InvalidFormatException;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.ConstraintViolationException;
import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.List;
import java.util.Map;
import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;
import org.jboss.resteasy.reactive.server.ServerResponseFilter;

/** Turns every error the REST layer sees into an {@code application/problem+json} answer. */
public class ProblemMappers {

  private static final Logger LOG = Logger.getLogger(ProblemMappers.class);

  private final ProblemConfig config;

  public ProblemMappers(ProblemConfig config) {
    this.config = config;
  }

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
        Problem.listed(
            e.getConstraintViolations().stream()
                .map(v -> new Problem.Violation(field(v), v.getMessage())),
            config.maxViolations());
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
    // Malformed JSON, a value of the wrong type ("id": "abc", 1.9 for an integer), an unknown key,
    // or a bound crossed while parsing: say where and what, in the client's terms (never a Java
    // class name), nothing was done.
    String where =
        e instanceof JsonMappingException m && !m.getPath().isEmpty()
            ? " at " + path(m)
            : e instanceof StreamReadException r && r.getProcessor() instanceof JsonParser p
                ? at(p.getParsingContext().pathAsPointer())
                : "";
    String what;
    if (e instanceof UnrecognizedPropertyException u) {
      what = "unknown key \"" + u.getPropertyName() + "\" (known: " + known(u) + ")";
    } else if (e instanceof InvalidFormatException f && f.getTargetType() != null) {
      what = "not a valid " + simple(f.getTargetType()) + ": " + f.getValue();
    } else {
      what = inSettings(innermost(e).getOriginalMessage());
    }
    return build(
            ProblemType.INVALID_INPUT,
            400,
            "unreadable JSON" + where + ": " + what + "; nothing was done",
            uri,
            List.of())
        .build();
  }

  /** Jackson's read constraints, by the setting of the service that sets each (StrictJson). */
  private static final Map<String, String> CONSTRAINTS =
      Map.of(
          "`StreamReadConstraints.getMaxTokenCount()`", "loomlab.input.max-tokens",
          "`StreamReadConstraints.getMaxStringLength()`", "loomlab.input.max-string-length",
          "`StreamReadConstraints.getMaxNestingDepth()`", "loomlab.input.max-nesting-depth",
          "`StreamReadConstraints.getMaxNumberLength()`", "loomlab.input.max-number-length");

  /** A bound crossed while parsing named by its setting, not by a Java method. */
  private static String inSettings(String message) {
    String out = message;
    for (var c : CONSTRAINTS.entrySet()) {
      out = out.replace(c.getKey(), c.getValue());
    }
    return out;
  }

  private static String known(UnrecognizedPropertyException u) {
    return u.getKnownPropertyIds() == null
        ? "none"
        : u.getKnownPropertyIds().stream().map(String::valueOf).sorted().toList().toString();
  }

  private static String simple(Class<?> type) {
    return type == Integer.class || type == int.class || type == Long.class || type == long.class
        ? "integer"
        : type.getSimpleName();
  }

  /** The exception that said what went wrong, past the wrappers that only added a path. */
  private static JsonProcessingException innermost(JsonProcessingException e) {
    JsonProcessingException found = e;
    for (Throwable t = e.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t instanceof JsonProcessingException j) {
        found = j;
      }
    }
    return found;
  }

  @ServerExceptionMapper
  public Response web(WebApplicationException e, UriInfo uri) {
    int status = e.getResponse().getStatus();
    if (status == 400 && e.getCause() instanceof JsonProcessingException json) {
      // The body reader's own failure (a bound crossed while parsing), wrapped by the framework.
      return unreadableJson(json, uri);
    }
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
      case 413 -> ProblemType.PAYLOAD_TOO_LARGE;
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
  private static String path(JsonMappingException e) {
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

  /** Where the parser stood (a key given twice: at that key), in the same form as {@link #path}. */
  private static String at(JsonPointer pointer) {
    StringBuilder sb = new StringBuilder();
    for (JsonPointer p = pointer; p != null && !p.matches(); p = p.tail()) {
      if (p.getMatchingIndex() >= 0) {
        sb.append('[').append(p.getMatchingIndex()).append(']');
      } else {
        sb.append(sb.isEmpty() ? "" : ".").append(p.getMatchingProperty());
      }
    }
    return sb.isEmpty() ? "" : " at " + sb;
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
