package dev.loomlab.pinning;

import io.quarkus.runtime.ImageMode;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.util.Optional;

/**
 * Where this runtime offers a {@link NativeFrame}. Its one implementation, {@link NativeUpcall},
 * needs the FFM API (final in Java 22) and is compiled for release 22 while the rest of the service
 * is compiled for 21 (pom.xml's {@code compile-ffm} execution). Nothing compiled for 21 names it:
 * it is looked up by name, and only where the running JDK can load it, so the same jar runs on JDK
 * 21 and 25.
 */
final class NativeFrames {

  /** The first JDK whose FFM API {@link NativeUpcall} compiles against. */
  static final int FFM_FEATURE = 22;

  private NativeFrames() {}

  /** Empty where this runtime offers no native frame to block in ({@link #missingReason()}). */
  static Optional<NativeFrame> get() {
    return Holder.FRAME;
  }

  /** Why {@link #get()} is empty on this runtime. */
  static String missingReason() {
    if (ImageMode.current().isNativeImage()) {
      return "native images do not register the FFM upcall";
    }
    int jdk = Runtime.version().feature();
    if (jdk < FFM_FEATURE) {
      return "the FFM API is final from JDK "
          + FFM_FEATURE
          + " and this service runs on JDK "
          + jdk;
    }
    return "this runtime's FFM linker offers no libc qsort";
  }

  /** Initialised on first use. */
  private static final class Holder {
    static final Optional<NativeFrame> FRAME = load();

    @SuppressWarnings("unchecked") // NativeUpcall.create()'s declared type
    private static Optional<NativeFrame> load() {
      if (ImageMode.current().isNativeImage() || Runtime.version().feature() < FFM_FEATURE) {
        return Optional.empty();
      }
      try {
        Class<?> upcall = Class.forName(NativeFrames.class.getPackageName() + ".NativeUpcall");
        return (Optional<NativeFrame>)
            MethodHandles.lookup()
                .findStatic(upcall, "create", MethodType.methodType(Optional.class))
                .invoke();
      } catch (RuntimeException | Error e) {
        throw e;
      } catch (Throwable t) {
        throw new IllegalStateException("cannot load the FFM upcall", t);
      }
    }
  }
}
