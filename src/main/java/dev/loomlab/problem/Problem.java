package dev.loomlab.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * An RFC 9457 (formerly 7807) problem document, served as {@code application/problem+json}.
 *
 * @param violations for validation failures: each offending field and why
 * @param failed for partial writes: the tables that were not written
 * @param queue for {@code overloaded}: the queue the request's wait budget ran out in ({@code
 *     thread}, {@code permit} or {@code bulkhead})
 */
// Serialised from exception mappers, outside any resource signature: registered for native.
@RegisterForReflection
@JsonInclude(JsonInclude.Include.NON_EMPTY)
public record Problem(
    String type,
    String title,
    int status,
    String detail,
    String instance,
    List<Violation> violations,
    List<String> failed,
    String queue) {

  public static final String MEDIA_TYPE = "application/problem+json";

  /** One invalid input: where it was found and what is wrong with it. */
  @RegisterForReflection
  public record Violation(String field, String message) {}
}
