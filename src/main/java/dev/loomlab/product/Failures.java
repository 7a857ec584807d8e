package dev.loomlab.product;

import dev.loomlab.problem.ProblemException;
import java.net.ConnectException;
import java.util.List;

/** What a dependency's failure or lateness means to a client: 504 naming it, no class name. */
final class Failures {

  private Failures() {}

  /** A dependency's failure in words: what went wrong, never a Java class name. */
  static String whatFailed(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "cannot connect";
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        return t.getMessage();
      }
    }
    return "no reason given";
  }

  static ProblemException failed(Dependency dependency, Throwable failure) {
    return ProblemException.gatewayTimeout(
        "dependency " + dependency.id() + " failed: " + whatFailed(failure));
  }

  static ProblemException late(long timeoutMs, List<String> late) {
    return ProblemException.gatewayTimeout(
        "no answer within " + timeoutMs + " ms from: " + String.join(", ", late));
  }
}
