package dev.loomlab.execution;

import java.util.Locale;

/**
 * The two execution models compared by every workload. The mode is part of each endpoint's path
 * ({@code /api/{mode}/...}) and the only thing that differs between the two endpoints of a
 * workload.
 */
public enum Mode {
  /** Quarkus' worker pool of platform threads ({@code @Blocking}). */
  WORKER,
  /** One virtual thread per request ({@code @RunOnVirtualThread}). */
  VIRTUAL;

  private final String id = name().toLowerCase(Locale.ROOT);

  /** The lower-case name used in paths, JSON and metric tags. */
  public String id() {
    return id;
  }
}
