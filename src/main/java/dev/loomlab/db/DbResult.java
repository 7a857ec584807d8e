package dev.loomlab.db;

/**
 * One pool-bound query: how long it waited for a permit and a connection, and how long it held the
 * connection; through which clients ({@code blocking}: JDBC, {@code reactive}: the Vert.x client).
 */
public record DbResult(
    String mode,
    String clients,
    String thread,
    boolean virtual,
    long sleptMs,
    long waitedMs,
    long heldMs,
    boolean bulkhead) {}
