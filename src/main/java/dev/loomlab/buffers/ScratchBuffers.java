package dev.loomlab.buffers;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;
import jakarta.enterprise.context.ApplicationScoped;
import java.lang.ref.SoftReference;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;

/**
 * The two caches of scratch buffers: one per thread, and one pool shared by all. Each new buffer is
 * counted ({@code loomlab.buffers.allocated}, tagged {@code cache}), so a report can say how often
 * a request found none to reuse. Created at start-up, so both counters are there from the first
 * scrape.
 */
@Startup
@ApplicationScoped
public class ScratchBuffers {

  private final int bytes;
  private final ThreadLocal<SoftReference<byte[]>> perThread = new ThreadLocal<>();
  private final BlockingQueue<byte[]> pool;
  private final Map<Cache, Counter> allocated = new EnumMap<>(Cache.class);

  ScratchBuffers(BuffersConfig config, MeterRegistry registry) {
    this.bytes = config.kb() * 1024;
    this.pool = new ArrayBlockingQueue<>(config.poolSize());
    for (Cache cache : Cache.values()) {
      allocated.put(
          cache,
          Counter.builder("loomlab.buffers.allocated")
              .description("Scratch buffers allocated because none could be reused")
              .tag("cache", cache.name().toLowerCase(Locale.ROOT))
              .register(registry));
    }
  }

  /** A buffer from {@code cache}: reused where one is there, else new (and counted). */
  public Lease take(Cache cache) {
    byte[] buffer = cache == Cache.THREAD ? fromThread() : pool.poll();
    boolean fresh = buffer == null;
    if (fresh) {
      buffer = new byte[bytes];
      allocated.get(cache).increment();
      if (cache == Cache.THREAD) {
        perThread.set(new SoftReference<>(buffer));
      }
    }
    return new Lease(cache, buffer, fresh);
  }

  private byte[] fromThread() {
    SoftReference<byte[]> ref = perThread.get();
    return ref == null ? null : ref.get();
  }

  /** A buffer in use by one request; {@link #close()} gives a pooled one back. */
  public final class Lease implements AutoCloseable {
    private final Cache cache;
    private final byte[] buffer;
    private final boolean fresh;

    private Lease(Cache cache, byte[] buffer, boolean fresh) {
      this.cache = cache;
      this.buffer = buffer;
      this.fresh = fresh;
    }

    public byte[] buffer() {
      return buffer;
    }

    /** Whether this request had to allocate it. */
    public boolean fresh() {
      return fresh;
    }

    @Override
    public void close() {
      if (cache == Cache.POOL) {
        pool.offer(buffer); // a full pool drops it: the pool's size bounds what it keeps
      }
    }
  }
}
