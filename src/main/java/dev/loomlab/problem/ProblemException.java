package dev.loomlab.problem;

import java.util.List;
import java.util.Map;

/**
 * An error the service answers on purpose, rendered as a problem document by {@link
 * ProblemMappers}. Thrown before any work is done for bad input.
 */
public class ProblemException extends RuntimeException {

  private final int status;
  private final String title;
  private final List<Problem.Violation> violations;
  private final Map<String, String> headers;
  private final String type;
  private final List<String> failed;

  public ProblemException(
      int status,
      String title,
      String detail,
      List<Problem.Violation> violations,
      Map<String, String> headers) {
    this("about:blank", status, title, detail, violations, headers, List.of());
  }

  private ProblemException(
      String type,
      int status,
      String title,
      String detail,
      List<Problem.Violation> violations,
      Map<String, String> headers,
      List<String> failed) {
    super(detail);
    this.type = type;
    this.status = status;
    this.title = title;
    this.violations = List.copyOf(violations);
    this.headers = Map.copyOf(headers);
    this.failed = List.copyOf(failed);
  }

  /**
   * 500 for a parallel write of which only some tables landed; the chunk is safe to replay.
   *
   * @param failedTables the tables that were not written
   */
  public static ProblemException partialWrite(String detail, List<String> failedTables) {
    return new ProblemException(
        "urn:loomlab:problem:partial-write",
        500,
        "Partial write",
        detail,
        List.of(),
        Map.of(),
        failedTables);
  }

  public static ProblemException badRequest(String detail, List<Problem.Violation> violations) {
    return new ProblemException(400, "Bad Request", detail, violations, Map.of());
  }

  public static ProblemException notFound(String detail) {
    return new ProblemException(404, "Not Found", detail, List.of(), Map.of());
  }

  /** 504: a dependency failed or did not answer in time; the detail names it. */
  public static ProblemException gatewayTimeout(String detail) {
    return new ProblemException(504, "Gateway Timeout", detail, List.of(), Map.of());
  }

  /** 503 with a {@code Retry-After} header: overload or a dependency down, try again later. */
  public static ProblemException unavailable(String detail, int retryAfterSeconds) {
    return new ProblemException(
        503,
        "Service Unavailable",
        detail,
        List.of(),
        Map.of("Retry-After", Integer.toString(retryAfterSeconds)));
  }

  public int status() {
    return status;
  }

  public String title() {
    return title;
  }

  public List<Problem.Violation> violations() {
    return violations;
  }

  public Map<String, String> headers() {
    return headers;
  }

  public String type() {
    return type;
  }

  public List<String> failed() {
    return failed;
  }
}
