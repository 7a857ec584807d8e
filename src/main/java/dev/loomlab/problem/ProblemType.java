package dev.loomlab.problem;

/**
 * Every kind of error a client of loom-lab can see, each with its own {@code type} URI (RFC 9457
 * section 3.1.1), its status and what a client should do about it. The "Problem types" table of
 * docs/endpoints.md and the OpenAPI document list the same.
 */
public enum ProblemType {
  /** 400: a parameter or the body is not acceptable; nothing was done or written. */
  INVALID_INPUT("invalid-input", 400, "Invalid input"),
  /** 413: the body is larger than {@code quarkus.http.limits.max-body-size}; nothing was read. */
  PAYLOAD_TOO_LARGE("payload-too-large", 413, "Payload too large"),
  /**
   * 414, 431: the request line or the headers are longer than {@code
   * loomlab.input.max-request-line} or {@code loomlab.input.max-header-bytes}; nothing was read.
   */
  REQUEST_HEAD_TOO_LARGE("request-head-too-large", 0, "Request line or headers too large"),
  /** 404: no such resource, or no such mode for the path. */
  NOT_FOUND("not-found", 404, "Not found"),
  /** 405, 406, 415: the method, the accepted media type or the body's media type is not served. */
  UNSUPPORTED_REQUEST("unsupported-request", 0, "Unsupported request"),
  /** 501: the runtime lacks what the request needs (the native pin without FFM). */
  NOT_IMPLEMENTED("not-implemented", 501, "Not implemented here"),
  /**
   * 503 + Retry-After: a bound was reached (thread wait, fan-out pool, database permit or
   * connection, heap for tasks, a running measurement); nothing was done, retry later.
   */
  OVERLOADED("overloaded", 503, "Overloaded"),
  /** 503 + Retry-After: the database does not answer; the service recovers by itself. */
  DATABASE_UNAVAILABLE("database-unavailable", 503, "Database unavailable"),
  /**
   * 503 + Retry-After: concurrent writes of the same rows still conflicted (deadlock or
   * serialization failure) after the bounded retries; the chunk is safe to replay.
   */
  WRITE_CONFLICT("write-conflict", 503, "Write conflict"),
  /** 504: a dependency failed or missed its timeout; the detail names it. */
  DEPENDENCY_FAILED("dependency-failed", 504, "Dependency failed"),
  /** 500: a parallel write landed some tables and not others; replaying the chunk converges. */
  PARTIAL_WRITE("partial-write", 500, "Partial write"),
  /**
   * 500: a parallel write landed its parent, then the database refused a child's data: a replay of
   * the same chunk meets the same refusal; the failed tables are listed. (Validation refuses every
   * such value known before anything is written; this is the net under it.)
   */
  PARTIAL_WRITE_REFUSED("partial-write-refused", 500, "Partial write refused by the database"),
  /** 500: the database refused a statement for another reason; the detail has its SQLState. */
  DATABASE_ERROR("database-error", 500, "Database error"),
  /** 500: a bug; the detail carries the id under which the server logged it. */
  INTERNAL_ERROR("internal-error", 500, "Internal error");

  public static final String PREFIX = "urn:loomlab:problem:";

  private final String slug;
  private final int status;
  private final String title;

  ProblemType(String slug, int status, String title) {
    this.slug = slug;
    this.status = status;
    this.title = title;
  }

  public String uri() {
    return PREFIX + slug;
  }

  /** The status this type is answered with; 0 where it keeps the framework's (405, 406, 415). */
  public int status() {
    return status;
  }

  public String title() {
    return title;
  }
}
