package dev.loomlab.ingest;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Provider;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Checks the bounds of {@link ValidChunk} that come from configuration, on a chunk of any domain.
 * The validated type is the raw {@code List}: a wildcard ({@code List<? extends IngestRecord>}) is
 * not a legal CDI bean type, and Quarkus looks the validator up as a bean.
 */
@ApplicationScoped
@SuppressWarnings("rawtypes")
public class ChunkValidator implements ConstraintValidator<ValidChunk, List> {

  // A provider: Hibernate Validator builds its validators while Quarkus starts, before runtime
  // configuration is there.
  private final Provider<IngestConfig> configs;

  ChunkValidator(Provider<IngestConfig> configs) {
    this.configs = configs;
  }

  @Override
  public boolean isValid(List chunk, ConstraintValidatorContext context) {
    IngestConfig config = configs.get();
    context.disableDefaultConstraintViolation();
    if (chunk == null || chunk.isEmpty()) {
      return violation(context, "must hold at least one record", -1, null);
    }
    boolean valid = true;
    if (chunk.size() > config.maxChunk()) {
      valid =
          violation(
              context,
              "at most "
                  + config.maxChunk()
                  + " records per chunk (loomlab.ingest.max-chunk), got "
                  + chunk.size(),
              -1,
              null);
    }
    Set<Long> seen = new HashSet<>();
    for (int i = 0; i < chunk.size(); i++) {
      IngestRecord r = (IngestRecord) chunk.get(i);
      if (r == null) {
        valid = violation(context, "must not be null", i, null);
        continue;
      }
      if (r.id() != null && !seen.add(r.id())) {
        valid =
            violation(context, "id " + r.id() + " appears more than once in the chunk", i, "id");
      }
      if (r.skills() != null && r.skills().size() > config.maxSkills()) {
        valid =
            violation(
                context,
                "at most " + config.maxSkills() + " skills (loomlab.ingest.max-skills)",
                i,
                "skills");
      }
      float[] e = r.embedding();
      if (e != null) {
        if (e.length != config.embeddingDimension()) {
          valid =
              violation(
                  context,
                  "must have exactly " + config.embeddingDimension() + " values, got " + e.length,
                  i,
                  "embedding");
        } else if (!allFinite(e)) {
          // A value past float's range (1e39, 1e400) reads as an infinity.
          valid = violation(context, "values must be finite numbers", i, "embedding");
        }
      }
    }
    return valid;
  }

  private static boolean allFinite(float[] values) {
    for (float v : values) {
      if (!Float.isFinite(v)) {
        return false;
      }
    }
    return true;
  }

  /** A violation on the chunk ({@code index < 0}), on element {@code index}, or on its property. */
  private static boolean violation(
      ConstraintValidatorContext context, String message, int index, String property) {
    var builder = context.buildConstraintViolationWithTemplate(escape(message));
    if (index < 0) {
      builder.addConstraintViolation();
    } else if (property == null) {
      builder.addBeanNode().inIterable().atIndex(index).addConstraintViolation();
    } else {
      builder.addPropertyNode(property).inIterable().atIndex(index).addConstraintViolation();
    }
    return false;
  }

  /** Messages are EL templates: keep user data out of them literally. */
  private static String escape(String message) {
    return message
        .replace("\\", "\\\\")
        .replace("{", "\\{")
        .replace("}", "\\}")
        .replace("$", "\\$");
  }
}
