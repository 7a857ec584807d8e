package dev.loomlab.execution;

import java.util.Collections;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The workloads and the modes each runs in: the service's statement of the mode matrix. k6 and the
 * bench read the same from {@code k6/lib/modes.json}, which {@code ModeMatrixTest} keeps equal to
 * {@link #matrix()}; {@code /api/info} prints it.
 */
public enum Workload {
  SLEEP(Mode.values(), null),
  TASKS(
      Mode.ON_THREADS, "each task is a blocked thread by design; the event loop must never block"),
  PRODUCT(Mode.values(), null),
  RECRUITS(Mode.values(), readBack("recruits")),
  CANDIDATES(Mode.values(), readBack("candidates")),
  DB(Mode.values(), null),
  MIXED(Mode.values(), null),
  BUFFERS(Mode.values(), null),
  PINNING(
      Mode.ON_THREADS,
      "pinning is a virtual thread blocked inside synchronized or native code; the event loop must"
          + " never block");

  /** The workloads whose virtual mode can await the reactive clients ({@code clients=reactive}). */
  public static final Set<Workload> REACTIVE_CLIENTS =
      Collections.unmodifiableSet(EnumSet.of(PRODUCT, DB));

  private final String id = name().toLowerCase(Locale.ROOT);
  private final Set<Mode> modes;
  private final String noEventLoop;

  Workload(Mode[] modes, String noEventLoop) {
    this(Set.of(modes), noEventLoop);
  }

  Workload(Set<Mode> modes, String noEventLoop) {
    this.modes = Collections.unmodifiableSet(EnumSet.copyOf(modes));
    this.noEventLoop = noEventLoop;
  }

  private static String readBack(String domain) {
    return "reading "
        + domain
        + " back has no reactive form (JDBC only; the chunk writer, POST /api/reactive/"
        + domain
        + "/batch, has one)";
  }

  /** The path segment and metric tag: {@code sleep}, {@code tasks}, ... */
  public String id() {
    return id;
  }

  public Set<Mode> modes() {
    return modes;
  }

  /**
   * Why a path of this workload under {@code /api/reactive} has no event-loop form, or null where
   * every path has one.
   */
  public String whyNotOnEventLoop() {
    if (noEventLoop == null) {
      return null;
    }
    return noEventLoop.startsWith("reading")
        ? noEventLoop
        : id + " has no reactive form (" + noEventLoop + ")";
  }

  /**
   * The mode matrix as k6/lib/modes.json states it: each workload's modes, then the chunk writers'
   * COPY and their gRPC stream (both on threads only: the Vert.x client has no COPY, the stream's
   * chunks are written by the threaded engine), then the workloads of {@code virtual+rx}.
   */
  public static Map<String, List<String>> matrix() {
    Map<String, List<String>> matrix = new LinkedHashMap<>();
    for (Workload w : values()) {
      matrix.put(w.id, ids(w.modes));
    }
    matrix.put("copy", ids(Mode.ON_THREADS));
    matrix.put("ingest-grpc", ids(Mode.ON_THREADS));
    matrix.put("virtual+rx", REACTIVE_CLIENTS.stream().map(Workload::id).toList());
    return matrix;
  }

  private static List<String> ids(Set<Mode> modes) {
    return modes.stream().map(Mode::id).toList();
  }
}
