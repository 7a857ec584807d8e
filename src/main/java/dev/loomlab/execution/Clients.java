package dev.loomlab.execution;

import dev.loomlab.problem.Problem;
import dev.loomlab.problem.ProblemException;
import java.util.List;
import java.util.Locale;

/**
 * Which clients a workload's I/O goes through: the blocking ones of the threaded modes (JDBC, the
 * JDK {@code HttpClient}), or the reactive ones of the event loop (the Vert.x PostgreSQL client and
 * web client). {@code clients=reactive} on the virtual mode is the combination Quarkus documents
 * for virtual threads: a virtual thread calls the reactive clients and awaits them. It is a variant
 * of the virtual mode, not a mode of its own: a worker thread awaiting would hold a pool thread for
 * nothing, and the reactive mode has no other clients.
 */
public enum Clients {
  BLOCKING,
  REACTIVE;

  private static final String PARAM = "clients";
  private final String id = name().toLowerCase(Locale.ROOT);

  public String id() {
    return id;
  }

  /** The clients a request of {@code mode} asked for ({@code null}: the mode's own), or a 400. */
  public static Clients of(Mode mode, String value) {
    Clients own = mode == Mode.REACTIVE ? REACTIVE : BLOCKING;
    // The virtual-loop mode's thread is its event loop's: awaiting a reactive client there would
    // park on the loop that must answer it; the combination is the virtual mode's alone.
    if (value == null || value.isBlank()) {
      return own;
    }
    for (Clients c : values()) {
      if (c.id.equals(value)) {
        if (c != own && mode != Mode.VIRTUAL) {
          throw invalid(
              value,
              "the "
                  + mode.id()
                  + " mode has only its own clients, "
                  + own.id
                  + "; clients=reactive is a variant of the virtual mode");
        }
        return c;
      }
    }
    throw invalid(value, "must be one of [blocking, reactive]");
  }

  private static ProblemException invalid(String value, String message) {
    return ProblemException.badRequest(
        PARAM + "=" + value + ": " + message, List.of(new Problem.Violation(PARAM, message)));
  }
}
