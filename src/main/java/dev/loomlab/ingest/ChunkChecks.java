package dev.loomlab.ingest;

import dev.loomlab.problem.Problem;
import dev.loomlab.problem.ProblemConfig;
import dev.loomlab.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.validation.ConstraintViolation;
import jakarta.validation.Validator;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Whether a chunk of any domain may be written, however it arrived (a REST body, a gRPC message):
 * not empty, at most {@code loomlab.ingest.max-chunk} records, unique ids, at most {@code
 * max-skills} skills each, every embedding of exactly {@code embedding-dimension} finite values,
 * and each record's own constraints. Fields are named as the client sent them
 * ("recruits[3].skills[0].name").
 *
 * <p>The records are validated one at a time and the checks stop once {@code
 * loomlab.problem.max-violations} violations are found: a body may hold one violation per element
 * (1,000 records of 50 empty skills), and building each costs more than reading it.
 */
@ApplicationScoped
public class ChunkChecks {

  private final Validator validator;
  private final IngestConfig config;
  private final ProblemConfig problems;

  ChunkChecks(Validator validator, IngestConfig config, ProblemConfig problems) {
    this.validator = validator;
    this.config = config;
    this.problems = problems;
  }

  /**
   * @throws ProblemException {@code invalid-input} listing the violations found; nothing is written
   */
  public <R extends IngestRecord> void check(Domain<R, ?> domain, List<R> records) {
    Found found = new Found(domain.name(), problems.maxViolations());
    if (records == null || records.isEmpty()) {
      found.add(-1, null, "must hold at least one record");
    } else if (records.size() > config.maxChunk()) {
      // Not one record is looked at: the chunk is refused by its size alone.
      found.add(
          -1,
          null,
          "at most "
              + config.maxChunk()
              + " records per chunk (loomlab.ingest.max-chunk), got "
              + records.size());
    } else {
      Set<Long> seen = new HashSet<>();
      for (int i = 0; i < records.size() && !found.full(i); i++) {
        record(records.get(i), i, seen, found);
      }
    }
    if (!found.violations.isEmpty()) {
      throw ProblemException.badRequest(
          "the chunk is invalid; nothing of it was written", found.listed());
    }
  }

  private void record(IngestRecord r, int i, Set<Long> seen, Found found) {
    if (r == null) {
      found.add(i, null, "must not be null");
      return;
    }
    if (r.id() != null && !seen.add(r.id())) {
      found.add(i, "id", "id " + r.id() + " appears more than once in the chunk");
    }
    if (r.skills() != null && r.skills().size() > config.maxSkills()) {
      // Checked while parsed too (@MostValues); a gRPC message is counted here.
      found.add(
          i, "skills", "at most " + config.maxSkills() + " skills (loomlab.ingest.max-skills)");
      return;
    }
    float[] e = r.embedding();
    if (e != null && e.length != config.embeddingDimension()) {
      found.add(
          i,
          "embedding",
          "must have exactly " + config.embeddingDimension() + " values, got " + e.length);
    } else if (e != null && !allFinite(e)) {
      // A value past float's range (1e39, 1e400) reads as an infinity.
      found.add(i, "embedding", "values must be finite numbers");
    }
    for (ConstraintViolation<IngestRecord> v : validator.validate(r)) {
      String path = v.getPropertyPath().toString();
      found.add(i, path.isEmpty() ? null : path, v.getMessage());
    }
  }

  private static boolean allFinite(float[] values) {
    for (float v : values) {
      if (!Float.isFinite(v)) {
        return false;
      }
    }
    return true;
  }

  /** The violations found so far, up to the most an answer lists, and where the checks stopped. */
  private static final class Found {
    private final String name;
    private final int max;
    private final List<Problem.Violation> violations = new ArrayList<>();
    private int stoppedAt = -1;

    Found(String name, int max) {
      this.name = name;
      this.max = max;
    }

    void add(int index, String property, String message) {
      String field = index < 0 ? name : name + "[" + index + "]";
      violations.add(
          new Problem.Violation(property == null ? field : field + "." + property, message));
    }

    /** Whether record {@code index} is past the bound, noting where the checks stopped. */
    boolean full(int index) {
      if (violations.size() < max) {
        return false;
      }
      stoppedAt = index;
      return true;
    }

    List<Problem.Violation> listed() {
      List<Problem.Violation> listed = Problem.listed(violations.stream(), max);
      if (stoppedAt < 0) {
        return listed;
      }
      List<Problem.Violation> noted = new ArrayList<>(listed);
      noted.add(
          new Problem.Violation(
              "...",
              "checks stopped at "
                  + violations.size()
                  + " violations (loomlab.problem.max-violations): "
                  + name
                  + "["
                  + stoppedAt
                  + "] and after were not checked"));
      return noted;
    }
  }
}
