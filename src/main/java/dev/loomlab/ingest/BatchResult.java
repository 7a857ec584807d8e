package dev.loomlab.ingest;

import java.util.Map;

/**
 * What a batch wrote: rows and milliseconds per table (each table's own transaction time in
 * parallel; its share of the one transaction in sequential), and the whole request's time; the
 * thread that answered (an event loop in the reactive mode).
 */
public record BatchResult(
    String domain,
    String mode,
    String writes,
    String thread,
    boolean virtual,
    int records,
    Map<String, Integer> rows,
    Map<String, Long> tableMs,
    long totalMs) {}
