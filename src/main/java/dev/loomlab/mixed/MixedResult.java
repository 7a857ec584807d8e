package dev.loomlab.mixed;

/**
 * What one mixed request did and where: the CPU asked for and measured (the thread's CPU time, null
 * on a virtual thread, whose CPU time the JDK does not measure; the wall time of the work in every
 * mode), the rounds and their digest, the wait, and whether the work ran off the event loop.
 */
public record MixedResult(
    String mode,
    String thread,
    boolean virtual,
    boolean offloaded,
    long cpuMs,
    long waitMs,
    long rounds,
    String digest,
    Double cpuMillis,
    double workMillis) {

  static MixedResult of(String mode, boolean offloaded, long cpuMs, long waitMs, Burn burn) {
    return new MixedResult(
        mode,
        burn.thread(),
        burn.virtual(),
        offloaded,
        cpuMs,
        waitMs,
        burn.rounds(),
        burn.digest(),
        burn.cpuNanos() < 0 ? null : burn.cpuNanos() / 1e6,
        burn.wallNanos() / 1e6);
  }
}
