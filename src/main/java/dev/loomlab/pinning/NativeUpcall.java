package dev.loomlab.pinning;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;

/**
 * Runs a blocking action inside an upcall from native code: libc's {@code qsort} sorts two ints and
 * calls back into Java to compare them, and the comparator blocks. While it blocks, a native frame
 * ({@code qsort}) is on the virtual thread's stack, so it cannot unmount: pinned, on every JDK.
 * Uses the FFM API (final since Java 22); no native library of our own. Compiled for release 22
 * (pom.xml's {@code compile-ffm} execution) and reached only through {@link NativeFrames#get()}.
 */
final class NativeUpcall implements NativeFrame {

  private static final ThreadLocal<Runnable> ACTION = new ThreadLocal<>();
  private final MethodHandle qsort;
  private final MemorySegment comparator;

  private NativeUpcall(MethodHandle qsort, MemorySegment comparator) {
    this.qsort = qsort;
    this.comparator = comparator;
  }

  /** Calls {@code action} from inside a native {@code qsort} comparator, on this thread. */
  @Override
  public void run(Runnable action) {
    try (Arena arena = Arena.ofConfined()) {
      MemorySegment ints = arena.allocateFrom(ValueLayout.JAVA_INT, 2, 1);
      ACTION.set(action);
      qsort.invokeExact(ints, 2L, (long) Integer.BYTES, comparator);
    } catch (RuntimeException | Error e) {
      throw e;
    } catch (Throwable t) {
      throw new IllegalStateException("native upcall failed", t);
    } finally {
      ACTION.remove();
    }
  }

  @SuppressWarnings("unused") // called from native code through the upcall stub
  private static int compare(MemorySegment a, MemorySegment b) {
    Runnable action = ACTION.get();
    if (action != null) {
      ACTION.remove(); // block once, however many comparisons qsort makes
      action.run();
    }
    int x = a.reinterpret(Integer.BYTES).get(ValueLayout.JAVA_INT, 0);
    int y = b.reinterpret(Integer.BYTES).get(ValueLayout.JAVA_INT, 0);
    return Integer.compare(x, y);
  }

  /**
   * Empty where the platform's linker offers no {@code qsort}. Never called in a native image,
   * which would need the upcall registered at build time (-H:+ForeignAPISupport and reachability
   * metadata for {@link #compare}); without it the call would crash.
   */
  static Optional<NativeFrame> create() {
    try {
      Linker linker = Linker.nativeLinker();
      Optional<MemorySegment> symbol = linker.defaultLookup().find("qsort");
      if (symbol.isEmpty()) {
        return Optional.empty();
      }
      MethodHandle qsort =
          linker.downcallHandle(
              symbol.get(),
              FunctionDescriptor.ofVoid(
                  ValueLayout.ADDRESS,
                  ValueLayout.JAVA_LONG,
                  ValueLayout.JAVA_LONG,
                  ValueLayout.ADDRESS));
      MethodHandle compare =
          MethodHandles.lookup()
              .findStatic(
                  NativeUpcall.class,
                  "compare",
                  MethodType.methodType(int.class, MemorySegment.class, MemorySegment.class));
      MemorySegment stub =
          linker.upcallStub(
              compare,
              FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS, ValueLayout.ADDRESS),
              Arena.global());
      return Optional.of(new NativeUpcall(qsort, stub));
    } catch (ReflectiveOperationException | RuntimeException e) {
      return Optional.empty();
    }
  }
}
