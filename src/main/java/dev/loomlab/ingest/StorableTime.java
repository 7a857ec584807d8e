package dev.loomlab.ingest;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.ElementType.TYPE_USE;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import jakarta.validation.Constraint;
import jakarta.validation.ConstraintValidator;
import jakarta.validation.ConstraintValidatorContext;
import jakarta.validation.Payload;
import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/**
 * An instant between 0001-01-01 and 9999-12-31 (UTC): within PostgreSQL's {@code timestamptz}
 * (which refuses what lies past 294276 AD with SQLState 22008) and within what every client reads
 * back as ISO 8601. Null is valid.
 */
@Documented
@Constraint(validatedBy = StorableTime.Check.class)
@Target({FIELD, METHOD, PARAMETER, TYPE_USE})
@Retention(RUNTIME)
public @interface StorableTime {

  String message() default
      "must be a valid instant between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z";

  Class<?>[] groups() default {};

  Class<? extends Payload>[] payload() default {};

  /** The check itself. */
  class Check implements ConstraintValidator<StorableTime, OffsetDateTime> {
    private static final OffsetDateTime FIRST =
        OffsetDateTime.of(1, 1, 1, 0, 0, 0, 0, ZoneOffset.UTC);
    private static final OffsetDateTime LAST =
        OffsetDateTime.of(9999, 12, 31, 23, 59, 59, 999_999_999, ZoneOffset.UTC);

    @Override
    public boolean isValid(OffsetDateTime value, ConstraintValidatorContext context) {
      return value == null || (!value.isBefore(FIRST) && !value.isAfter(LAST));
    }
  }
}
