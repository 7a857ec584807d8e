package dev.loomlab.pinning;

/**
 * Runs a blocking action with a native frame on the thread's stack, which pins a virtual thread on
 * every JDK. Obtained from {@link NativeFrames#get()}.
 */
interface NativeFrame {

  /** Calls {@code action} from inside a native frame, on this thread. */
  void run(Runnable action);
}
