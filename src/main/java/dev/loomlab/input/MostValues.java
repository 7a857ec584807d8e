package dev.loomlab.input;

import static java.lang.annotation.ElementType.FIELD;
import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.ElementType.PARAMETER;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import com.fasterxml.jackson.annotation.JacksonAnnotation;
import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

/**
 * An array property read at most as many values as the named setting allows (an integer, e.g.
 * {@code loomlab.ingest.max-skills}), refused while it is parsed at the value past it, as {@code
 * loomlab.input.max-array-length} refuses any array: so a body cannot make the service build a
 * thousand times the values a record may hold, only to validate and refuse them one by one.
 */
@Documented
@JacksonAnnotation
@Target({FIELD, METHOD, PARAMETER})
@Retention(RUNTIME)
public @interface MostValues {

  /** The setting that holds the bound. */
  String value();
}
