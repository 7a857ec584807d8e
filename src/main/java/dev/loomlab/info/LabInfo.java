package dev.loomlab.info;

import java.util.List;
import java.util.Map;

/**
 * The configuration a benchmark ran against: printed at start-up and copied into every report.
 *
 * @param pools sizes of every pool and bound that shapes a comparison
 * @param modes which modes each workload runs in (the mode matrix, as k6/lib/modes.json states it)
 */
public record LabInfo(
    String jdk,
    String vm,
    String quarkus,
    int cpus,
    long maxHeapBytes,
    String imageKind,
    Map<String, Object> pools,
    Map<String, List<String>> modes) {}
