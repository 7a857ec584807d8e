package dev.loomlab.mixed;

/**
 * What one request's CPU work did, on which thread: the rounds hashed, the digest they ended on
 * (hex), the thread's CPU time for them (-1 where the JDK does not measure it: a virtual thread)
 * and their wall time.
 */
public record Burn(
    String thread, boolean virtual, long rounds, String digest, long cpuNanos, long wallNanos) {}
