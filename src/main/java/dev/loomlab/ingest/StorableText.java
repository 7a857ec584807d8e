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

/**
 * Text PostgreSQL can store as sent: no U+0000, which a {@code text} column refuses (SQLState
 * 22021), and no lone UTF-16 surrogate (JSON's {@code "\\uD800"} escape), which has no UTF-8 form
 * and would be stored as {@code ?}. Null is valid. Checked with the other constraints, so such a
 * chunk is refused before anything of it is written, in every strategy.
 */
@Documented
@Constraint(validatedBy = StorableText.Check.class)
@Target({FIELD, METHOD, PARAMETER, TYPE_USE})
@Retention(RUNTIME)
public @interface StorableText {

  String message() default
      "must not contain U+0000 or a lone surrogate (PostgreSQL text cannot hold them as sent)";

  Class<?>[] groups() default {};

  Class<? extends Payload>[] payload() default {};

  /** The check itself. */
  class Check implements ConstraintValidator<StorableText, String> {
    @Override
    public boolean isValid(String value, ConstraintValidatorContext context) {
      return value == null || (value.indexOf('\u0000') < 0 && wellFormed(value));
    }

    /** Every surrogate in a pair, high then low. */
    static boolean wellFormed(String value) {
      for (int i = 0; i < value.length(); i++) {
        char c = value.charAt(i);
        if (Character.isHighSurrogate(c)
            && i + 1 < value.length()
            && Character.isLowSurrogate(value.charAt(i + 1))) {
          i++;
        } else if (Character.isSurrogate(c)) {
          return false;
        }
      }
      return true;
    }
  }
}
