package dev.loomlab.execution;

import dev.loomlab.problem.EnumNames;
import java.util.Collections;
import java.util.EnumSet;
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
  /**
   * One virtual thread per request whose scheduler is the request's own event loop ({@link
   * LoopCarriers}): the same blocking code as {@link #VIRTUAL}, leaving the event loop only to
   * park.
   */
  VIRTUAL_LOOP,
  /** The Vert.x event loop: {@code Uni} pipelines over non-blocking clients, no thread held. */
  REACTIVE;

  /** The modes whose requests hold a thread while they wait, the ones every workload has. */
  public static final Set<Mode> ON_THREADS =
      Collections.unmodifiableSet(EnumSet.of(WORKER, VIRTUAL, VIRTUAL_LOOP));

  private final String id = EnumNames.of(this);

  /** Whether a request of this mode runs on a virtual thread (its carriers the JDK's or a loop). */
  public boolean isVirtual() {
    return this == VIRTUAL || this == VIRTUAL_LOOP;
  }

  /** The name used in paths, JSON and metric tags, as {@link EnumNames} spells it. */
  public String id() {
    return id;
  }
}
