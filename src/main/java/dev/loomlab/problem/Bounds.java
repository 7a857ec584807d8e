package dev.loomlab.problem;

import java.util.List;

/**
 * Range checks for knobs whose limits are configuration (Bean Validation annotations need
 * compile-time constants). A violation is a 400 problem, raised before any work starts.
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
}
