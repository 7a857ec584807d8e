package dev.loomlab.observability;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Resident set size read from the OS ({@code /proc/self/status}): the memory the process really
 * holds, which the JVM's heap and non-heap figures do not add up to.
 */
public final class ProcessMemory {

  private static final Path STATUS = Path.of("/proc/self/status");

  private ProcessMemory() {}

  /** Current RSS in bytes, or -1 where the OS does not expose it (not Linux). */
  public static long rssBytes() {
    try {
      for (String line : Files.readAllLines(STATUS)) {
        if (line.startsWith("VmRSS:")) {
          // "VmRSS:     123456 kB"
          String kb = line.substring(6).trim().split("\\s+")[0];
          return Long.parseLong(kb) * 1024;
        }
      }
    } catch (IOException | RuntimeException e) {
      return -1;
    }
    return -1;
  }
}
