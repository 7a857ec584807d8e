package dev.loomlab.minimal;

import io.smallrye.common.annotation.RunOnVirtualThread;
import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

/**
 * The minimal application's one endpoint: the service's first-answer path ({@code GET
 * /api/virtual/sleep?ms=0}, a virtual thread sleeping {@code ms}), with nothing behind it. {@code
 * ./lab startup} times both to their first answer with the same JDK, flags and launch.
 */
@Path("/api/virtual/sleep")
public class SleepResource {

  /** The longest sleep asked for; beyond it (or below zero) the request is refused. */
  static final int MAX_MS = 10_000;

  @GET
  @Produces(MediaType.APPLICATION_JSON)
  @RunOnVirtualThread
  public Response sleep(@QueryParam("ms") @DefaultValue("0") String ms)
      throws InterruptedException {
    int millis = parse(ms);
    if (millis < 0 || millis > MAX_MS) {
      return Response.status(Response.Status.BAD_REQUEST)
          .type("application/problem+json")
          .entity(new Problem("Bad Request", 400, "ms must be a whole number in 0.." + MAX_MS))
          .build();
    }
    Thread.sleep(millis);
    return Response.ok(new Slept("virtual", millis)).build();
  }

  /** What a sleep answers: the mode it ran in (as the service's) and how long it slept. */
  public record Slept(String mode, int sleptMs) {}

  /** An RFC 9457 problem: the refusal of a bad {@code ms}. */
  public record Problem(String title, int status, String detail) {}

  /** {@code ms} as a number, or -1 where it is none (a refusal, like one out of range). */
  private static int parse(String ms) {
    if (ms.length() > 6) {
      return -1;
    }
    try {
      return Integer.parseInt(ms);
    } catch (NumberFormatException e) {
      return -1;
    }
  }
}
