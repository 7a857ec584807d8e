package dev.loomlab.tasks;

/**
 * What a fan-out of {@code count} sleeping tasks took, in time and memory.
 *
 * @param executor how the tasks ran, e.g. "virtual-thread-per-task" or "fixed-platform-pool(10)"
 * @param peakConcurrentTasks most tasks sleeping at the same moment
 * @param peakPlatformThreads most live platform threads in the JVM during the run
 * @param measureGcMs the full GC taken while all tasks slept, to measure what they retain; it is
 *     inside {@code elapsedMs}
 * @param rssGrowthBytes RSS with every concurrent task asleep minus RSS before (from the OS); -1
 *     when the tasks were too short to catch them all asleep
 * @param heapGrowthBytes heap retained after a full GC with every concurrent task asleep, minus the
 *     same before; -1 likewise
 * @param rssBytesPerConcurrentTask RSS growth divided by the peak of concurrent tasks
 * @param heapBytesPerConcurrentTask heap growth divided by the peak of concurrent tasks
 */
public record TasksResult(
    String mode,
    int count,
    long ms,
    long elapsedMs,
    long idealMs,
    String executor,
    int peakConcurrentTasks,
    int peakPlatformThreads,
    long measureGcMs,
    long rssGrowthBytes,
    long heapGrowthBytes,
    long rssBytesPerConcurrentTask,
    long heapBytesPerConcurrentTask) {}
