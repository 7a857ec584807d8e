package dev.loomlab.ingest;

import jakarta.validation.Constraint;
import jakarta.validation.Payload;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * A batch of records of any domain within the configured bounds: not empty, at most {@code
 * loomlab.ingest.max-chunk} records, unique ids, at most {@code max-skills} skills each, and every
 * embedding of exactly {@code embedding-dimension} finite values.
 */
@Target({ElementType.PARAMETER, ElementType.FIELD})
@Retention(RetentionPolicy.RUNTIME)
@Constraint(validatedBy = ChunkValidator.class)
public @interface ValidChunk {
  String message() default "invalid chunk";

  Class<?>[] groups() default {};

  Class<? extends Payload>[] payload() default {};
}
