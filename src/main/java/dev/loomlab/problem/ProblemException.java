package dev.loomlab.problem;

import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jboss.logging.Logger;

/**
 * An error the service answers on purpose, rendered as a problem document by {@link
 * ProblemMappers}. Thrown before any work is done for bad input.
 */
public class ProblemException extends RuntimeException {

  private static final Logger LOG = Logger.getLogger(ProblemException.class);

  private final ProblemType type;
  private final int status;
  private final List<Problem.Violation> violations;
  private final Map<String, String> headers;
  private final List<String> failed;
  private final String queue;
  private final String sqlState;

  public ProblemException(
      ProblemType type,
      String detail,
      List<Problem.Violation> violations,
      Map<String, String> headers,
      List<String> failed) {
    this(type, detail, violations, headers, failed, null, null);
  }

  private ProblemException(
      ProblemType type,
      String detail,
      List<Problem.Violation> violations,
      Map<String, String> headers,
      List<String> failed,
      String queue,
      String sqlState) {
    super(detail);
    this.type = type;
    this.status = type.status();
    this.violations = List.copyOf(violations);
    this.headers = Map.copyOf(headers);
    this.failed = List.copyOf(failed);
    this.queue = queue;
    this.sqlState = sqlState;
  }

  /**
   * 500 for a parallel write of which only some tables landed; the chunk is safe to replay.
   *
   * @param failedTables the tables that were not written
   */
  public static ProblemException partialWrite(String detail, List<String> failedTables) {
    return new ProblemException(
        ProblemType.PARTIAL_WRITE, detail, List.of(), Map.of(), failedTables);
  }

  /**
   * 500 for a parallel write whose parent committed and whose children the database refused for
   * their data: replaying the same chunk cannot converge.
   */
  public static ProblemException partialWriteRefused(String detail, List<String> failedTables) {
    return new ProblemException(
        ProblemType.PARTIAL_WRITE_REFUSED, detail, List.of(), Map.of(), failedTables);
  }

  /**
   * 503 with {@code Retry-After}: concurrent writers still conflicted after the bounded retries.
   *
   * @param tables the tables whose write gave up
   */
  public static ProblemException writeConflict(
      String detail, List<String> tables, int retryAfterSeconds) {
    return new ProblemException(
        ProblemType.WRITE_CONFLICT, detail, List.of(), retryAfter(retryAfterSeconds), tables);
  }

  public static ProblemException badRequest(String detail, List<Problem.Violation> violations) {
    return new ProblemException(ProblemType.INVALID_INPUT, detail, violations, Map.of(), List.of());
  }

  public static ProblemException notFound(String detail) {
    return new ProblemException(ProblemType.NOT_FOUND, detail, List.of(), Map.of(), List.of());
  }

  public static ProblemException notImplemented(String detail) {
    return new ProblemException(
        ProblemType.NOT_IMPLEMENTED, detail, List.of(), Map.of(), List.of());
  }

  /** 504: a dependency failed or did not answer in time; the detail names it. */
  public static ProblemException gatewayTimeout(String detail) {
    return new ProblemException(
        ProblemType.DEPENDENCY_FAILED, detail, List.of(), Map.of(), List.of());
  }

  /** 503 with a {@code Retry-After} header: a bound was reached, try again later. */
  public static ProblemException unavailable(String detail, int retryAfterSeconds) {
    return new ProblemException(
        ProblemType.OVERLOADED, detail, List.of(), retryAfter(retryAfterSeconds), List.of());
  }

  /**
   * 503 with a {@code Retry-After} header: the request's wait budget ran out in {@code queue}
   * before its work started.
   */
  public static ProblemException overloaded(String detail, String queue, int retryAfterSeconds) {
    return new ProblemException(
        ProblemType.OVERLOADED,
        detail,
        List.of(),
        retryAfter(retryAfterSeconds),
        List.of(),
        queue,
        null);
  }

  /** 503 with a {@code Retry-After} header: the database does not answer. */
  public static ProblemException databaseUnavailable(String detail, int retryAfterSeconds) {
    return new ProblemException(
        ProblemType.DATABASE_UNAVAILABLE,
        detail,
        List.of(),
        retryAfter(retryAfterSeconds),
        List.of());
  }

  /** 500: the database refused a statement for a reason no other type covers ({@code sqlState}). */
  public static ProblemException databaseError(String detail, String sqlState) {
    return new ProblemException(
        ProblemType.DATABASE_ERROR, detail, List.of(), Map.of(), List.of(), null, sqlState);
  }

  /**
   * For {@code database-error}: whether the database refused the data itself (SQLState class 22,
   * data exception, or 23, integrity constraint violation), which the same statement meets again.
   */
  public boolean refusedData() {
    return sqlState != null && (sqlState.startsWith("22") || sqlState.startsWith("23"));
  }

  /**
   * 500 for a bug: logged in full under an id ({@code where} says what was being done), the id in
   * the detail, never the exception's class or message.
   */
  public static ProblemException unexpected(Throwable e, String where) {
    String id = UUID.randomUUID().toString();
    LOG.errorf(e, "unexpected error %s %s", id, where);
    return new ProblemException(
        ProblemType.INTERNAL_ERROR,
        "unexpected error, logged by the service as " + id,
        List.of(),
        Map.of(),
        List.of());
  }

  private static Map<String, String> retryAfter(int seconds) {
    return Map.of("Retry-After", Integer.toString(seconds));
  }

  public int status() {
    return status;
  }

  public String title() {
    return type.title();
  }

  public List<Problem.Violation> violations() {
    return violations;
  }

  public Map<String, String> headers() {
    return headers;
  }

  public ProblemType type() {
    return type;
  }

  public List<String> failed() {
    return failed;
  }

  /** For {@code overloaded} past the wait budget: the queue it ran out in; else null. */
  public String queue() {
    return queue;
  }
}
