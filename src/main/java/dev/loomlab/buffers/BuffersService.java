package dev.loomlab.buffers;

import dev.loomlab.buffers.ScratchBuffers.Lease;
import dev.loomlab.execution.EventLoopTimer;
import dev.loomlab.execution.Mode;
import dev.loomlab.observability.WorkloadMetrics;
import dev.loomlab.problem.Bounds;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32;

/**
 * A request that encodes into a scratch buffer, then waits (issue "where virtual threads stop
 * winning": what per-thread caches cost when every request has a new thread). The encoding fills
 * the whole buffer from the request's number, so every byte is written and read each time.
 */
@ApplicationScoped
public class BuffersService {

  private final BuffersConfig config;
  private final ScratchBuffers buffers;
  private final EventLoopTimer eventLoop;
  private final Map<Mode, Timer> timers;

  BuffersService(
      BuffersConfig config,
      ScratchBuffers buffers,
      EventLoopTimer eventLoop,
      WorkloadMetrics metrics) {
    this.config = config;
    this.buffers = buffers;
    this.eventLoop = eventLoop;
    this.timers = metrics.timers("buffers");
  }

  /** The cache named by the {@code cache} parameter: {@code thread} or {@code pool}. */
  public static Cache cache(String name) {
    return Bounds.oneOf("cache", "cache", name, Cache.THREAD, EnumSet.allOf(Cache.class));
  }

  /** On the request's own thread: encode, then wait holding the thread. */
  public BuffersResult run(Mode mode, Cache cache, long seed, long waitMs) {
    Bounds.check("wait-ms", waitMs, 0, config.maxWaitMs());
    long start = System.nanoTime();
    try {
      BuffersResult result = encode(mode, cache, seed);
      Thread.sleep(waitMs);
      return result;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("wait interrupted", e);
    } finally {
      timers.get(mode).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }
  }

  /**
   * On the event loop: encode there (a platform thread, so its thread-local is reused), then a
   * timer.
   */
  public Uni<BuffersResult> onEventLoop(Cache cache, long seed, long waitMs) {
    Bounds.check("wait-ms", waitMs, 0, config.maxWaitMs());
    long start = System.nanoTime();
    BuffersResult result = encode(Mode.REACTIVE, cache, seed);
    return eventLoop.after(
        waitMs,
        () -> {
          timers.get(Mode.REACTIVE).record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
          return result;
        });
  }

  private BuffersResult encode(Mode mode, Cache cache, long seed) {
    Thread current = Thread.currentThread();
    try (Lease lease = buffers.take(cache)) {
      byte[] buffer = lease.buffer();
      long x = seed;
      for (int i = 0; i < buffer.length; i++) {
        x =
            x * 6364136223846793005L
                + 1442695040888963407L; // an LCG: cheap, every byte depends on seed
        buffer[i] = (byte) (x >>> 56);
      }
      CRC32 crc = new CRC32();
      crc.update(buffer);
      return new BuffersResult(
          mode.id(),
          current.getName(),
          current.isVirtual(),
          cache.name().toLowerCase(Locale.ROOT),
          buffer.length,
          crc.getValue(),
          lease.fresh());
    }
  }
}
