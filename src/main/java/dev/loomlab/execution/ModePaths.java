package dev.loomlab.execution;

import dev.loomlab.problem.ProblemMappers;
import dev.loomlab.problem.ProblemType;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

/**
 * A 404 that says why: an unknown mode names the modes, and a workload path without an event-loop
 * form names the workload's modes and the reason ({@link Workload}).
 */
public class ModePaths {

  private static final Pattern MODE_PATH = Pattern.compile("^/?api/([^/]+)/([^/]+).*");
  private static final List<String> MODES = Arrays.stream(Mode.values()).map(Mode::id).toList();

  @ServerExceptionMapper
  public Response notFound(NotFoundException e, UriInfo uri) {
    if (e.getCause() != null) {
      // Jakarta REST answers 404 when a path or query parameter cannot be converted (spec 3.2);
      // for a client that sent "ms=abc" the truth is a bad request.
      String detail = "a parameter could not be read: " + e.getCause().getMessage();
      return ProblemMappers.answer(ProblemType.INVALID_INPUT, 400, detail, uri);
    }
    Matcher m = MODE_PATH.matcher(uri.getPath());
    String detail = "no resource at " + uri.getPath();
    if (m.matches() && !MODES.contains(m.group(1))) {
      detail = "unknown mode '" + m.group(1) + "': use one of " + MODES;
    } else if (m.matches() && m.group(1).equals(Mode.REACTIVE.id())) {
      detail =
          Arrays.stream(Workload.values())
              .filter(w -> w.id().equals(m.group(2)) && w.whyNotOnEventLoop() != null)
              .findFirst()
              .map(w -> w.whyNotOnEventLoop() + "; its modes: " + threaded(w))
              .orElse(detail);
    }
    return ProblemMappers.answer(ProblemType.NOT_FOUND, 404, detail, uri);
  }

  private static String threaded(Workload w) {
    return String.join(
        ", ", Mode.ON_THREADS.stream().filter(w.modes()::contains).map(Mode::id).toList());
  }
}
