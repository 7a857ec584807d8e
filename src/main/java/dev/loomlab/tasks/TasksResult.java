package dev.loomlab.tasks;

/**
 * What a fan-out of {@code count} sleeping tasks took, in time and memory.
 *
 * @param executor how the tasks ran, e.g. "virtual-thread-per-task" or "fixed-platform-pool(10)"
 * @param peakConcurrentTasks most tasks sleeping at the same moment
 * @param peakPlatformThreads most live platform threads in the JVM during the run
 * @param rssGrowthBytes peak RSS during the run minus RSS before it (from the OS)
 * @param heapGrowthBytes peak used heap during the run minus used heap before it
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
    long rssGrowthBytes,
    long heapGrowthBytes,
    long rssBytesPerConcurrentTask,
    long heapBytesPerConcurrentTask) {}
