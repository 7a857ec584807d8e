package dev.loomlab.ingest;

import dev.loomlab.problem.Problem;
import dev.loomlab.problem.ProblemConfig;
import dev.loomlab.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.validation.Valid;
import jakarta.validation.Validator;
import java.util.List;

/**
 * The constraints a REST batch gets from its signature ({@code @ValidChunk List<@Valid R>}), for
 * chunks that arrive another way (the gRPC stream): the same bounds, the same messages, and the
 * fields named as the REST answers name them ("recruits[3].embedding").
 */
@ApplicationScoped
public class ChunkChecks {

  private final Validator validator;
  private final ProblemConfig problems;

  ChunkChecks(Validator validator, ProblemConfig problems) {
    this.validator = validator;
    this.problems = problems;
  }

  /** A chunk as a REST method parameter would hold it. */
  private record Chunk<R>(@ValidChunk List<@Valid R> chunk) {}

  /**
   * @throws ProblemException {@code invalid-input} listing every violation; nothing is written
   */
  public <R extends IngestRecord> void check(Domain<R, ?> domain, List<R> records) {
    var violations = validator.validate(new Chunk<>(records));
    if (violations.isEmpty()) {
      return;
    }
    List<Problem.Violation> listed =
        Problem.listed(
            violations.stream()
                .map(
                    v ->
                        new Problem.Violation(
                            v.getPropertyPath().toString().replaceFirst("^chunk", domain.name()),
                            v.getMessage())),
            problems.maxViolations());
    throw ProblemException.badRequest("the chunk is invalid; nothing of it was written", listed);
  }
}
