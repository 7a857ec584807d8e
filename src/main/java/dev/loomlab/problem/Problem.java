package dev.loomlab.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.List;

/**
 * An RFC 9457 (formerly 7807) problem document, served as {@code application/problem+json}.
 *
 * @param violations for validation failures: each offending field and why
 * @param failed for partial writes: the tables that were not written
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
    List<String> failed) {

  public static final String MEDIA_TYPE = "application/problem+json";

  /** One invalid input: where it was found and what is wrong with it. */
  @RegisterForReflection
  public record Violation(String field, String message) {}
}
