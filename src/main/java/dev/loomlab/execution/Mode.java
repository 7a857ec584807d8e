package dev.loomlab.execution;

import java.util.Collections;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The execution models compared by the workloads. The mode is part of each endpoint's path ({@code
 * /api/{mode}/...}) and the only thing that differs between the endpoints of a workload. Every
 * workload runs on threads ({@link #ON_THREADS}); those with a non-blocking form also run on the
 * event loop.
 */
public enum Mode {
  /** Quarkus' worker pool of platform threads ({@code @Blocking}). */
  WORKER,
  /** One virtual thread per request ({@code @RunOnVirtualThread}). */
  VIRTUAL,
  /** The Vert.x event loop: {@code Uni} pipelines over non-blocking clients, no thread held. */
  REACTIVE;

  /** The modes whose requests hold a thread while they wait, the two every workload has. */
  public static final Set<Mode> ON_THREADS =
      Collections.unmodifiableSet(EnumSet.of(WORKER, VIRTUAL));

  private final String id = name().toLowerCase(Locale.ROOT);

  /** The lower-case name used in paths, JSON and metric tags. */
  public String id() {
    return id;
  }
}
