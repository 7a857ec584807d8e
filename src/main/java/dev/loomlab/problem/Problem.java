package dev.loomlab.problem;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;

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

  /**
   * The first {@code max} of {@code all} by field, then, if there were more, one entry saying how
   * many: an answer stays small however many violations a body holds.
   */
  public static List<Violation> listed(Stream<Violation> all, int max) {
    List<Violation> sorted = all.sorted(Comparator.comparing(Violation::field)).toList();
    if (sorted.size() <= max) {
      return sorted;
    }
    List<Violation> listed = new ArrayList<>(sorted.subList(0, max));
    listed.add(
        new Violation(
            "...",
            (sorted.size() - max)
                + " more violations not listed (loomlab.problem.max-violations)"));
    return listed;
  }

  /** One invalid input: where it was found and what is wrong with it. */
  @RegisterForReflection
  public record Violation(String field, String message) {}
}
