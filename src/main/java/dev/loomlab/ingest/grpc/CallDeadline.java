package dev.loomlab.ingest.grpc;

import dev.loomlab.problem.Problem;
import dev.loomlab.problem.ProblemException;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A call's deadline as its client sends it: the {@code grpc-timeout} header of gRPC over HTTP/2,
 * one to eight digits and a unit (H, M, S, m, u, n). Vert.x's gRPC server of this Quarkus does not
 * read it; {@link ChunkStream} does.
 */
final class CallDeadline {

  static final String HEADER = "grpc-timeout";
  private static final Pattern FORM = Pattern.compile("(\\d{1,8})([HMSmun])");

  private CallDeadline() {}

  /**
   * @return the time the client gives the call, if it gives one
   * @throws ProblemException {@code invalid-input} for a header not of that form
   */
  static Optional<Duration> of(String value) {
    if (value == null) {
      return Optional.empty();
    }
    Matcher m = FORM.matcher(value);
    if (!m.matches()) {
      String shown = value.length() > 20 ? value.substring(0, 20) + "..." : value;
      String why = "must be 1 to 8 digits and a unit (H, M, S, m, u, n), got \"" + shown + "\"";
      throw ProblemException.badRequest(
          "metadata " + HEADER + " " + why,
          List.of(new Problem.Violation("metadata " + HEADER, why)));
    }
    long n = Long.parseLong(m.group(1));
    return Optional.of(
        switch (m.group(2)) {
          case "H" -> Duration.ofHours(n);
          case "M" -> Duration.ofMinutes(n);
          case "S" -> Duration.ofSeconds(n);
          case "m" -> Duration.ofMillis(n);
          case "u" -> Duration.ofNanos(n * 1_000);
          default -> Duration.ofNanos(n);
        });
  }
}
