package dev.loomlab.pinning;

import java.util.Locale;

/** How a pinning request blocks. */
public enum LockKind {
  /** Inside a {@code synchronized} block: pins a virtual thread on JDK < 24 only (JEP 491). */
  SYNCHRONIZED,
  /** Holding a {@link java.util.concurrent.locks.ReentrantLock}: never pins. */
  REENTRANT,
  /** Inside an upcall from native code (FFM): pins on every JDK, a native frame is on the stack. */
  NATIVE;

  public String id() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static LockKind parse(String raw) {
    for (LockKind k : values()) {
      if (k.id().equals(raw)) {
        return k;
      }
    }
    return null;
  }

  /** Whether blocking this way keeps a virtual thread on its carrier, by the JDK's rules. */
  public boolean pinsOn(int jdkFeature) {
    return switch (this) {
      case SYNCHRONIZED -> jdkFeature < 24;
      case REENTRANT -> false;
      case NATIVE -> true;
    };
  }
}
