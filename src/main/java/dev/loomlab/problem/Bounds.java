package dev.loomlab.problem;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Range checks for knobs whose limits are configuration (Bean Validation annotations need
 * compile-time constants), and the choice of one of an enum's names where no annotation reads it (a
 * stream's metadata). A violation is a 400 problem, raised before any work starts.
 */
public final class Bounds {

  private Bounds() {}

  public static long check(String field, long value, long min, long max) {
    if (value < min || value > max) {
      String message = "must be between " + min + " and " + max;
      throw ProblemException.badRequest(
          field + "=" + value + ": " + message, List.of(new Problem.Violation(field, message)));
    }
    return value;
  }

  /**
   * The constant of {@code accepted} whose name as a client writes it ({@link EnumNames}) is {@code
   * value}; {@code absent} when there is no value and that is allowed (non-null), else 400 naming
   * {@code field} and the names.
   */
  public static <E extends Enum<E>> E oneOf(
      String what, String field, String value, E absent, Set<E> accepted) {
    if (value == null && absent != null) {
      return absent;
    }
    List<String> names = new ArrayList<>();
    for (E e : accepted) {
      String name = EnumNames.of(e);
      if (name.equals(value)) {
        return e;
      }
      names.add(name);
    }
    String message = value == null ? "is required" : "must be one of " + names;
    throw ProblemException.badRequest(
        what + " " + message + "; nothing was written",
        List.of(new Problem.Violation(field, message)));
  }
}
