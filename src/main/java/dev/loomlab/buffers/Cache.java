package dev.loomlab.buffers;

/** Where a request's scratch buffer comes from ({@code cache=thread|pool}). */
public enum Cache {
  /**
   * A {@code ThreadLocal} holding a soft reference to the buffer, as libraries cache per thread
   * (Jackson's buffer recycler did): reused by a pool's threads, new for every virtual thread.
   */
  THREAD,
  /** A shared pool of buffers, taken and given back by every thread alike. */
  POOL
}
