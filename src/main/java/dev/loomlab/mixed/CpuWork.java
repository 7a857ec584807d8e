package dev.loomlab.mixed;

import io.quarkus.runtime.Startup;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Real CPU work of a requested length: SHA-256 rounds, each over the payload and the previous
 * digest, so no round can be skipped and the last digest is the answer. How many rounds make a
 * millisecond is measured at start-up, on a thread of its own (the service is ready meanwhile; the
 * first requests wait for it), from that thread's CPU time, so a busy machine does not skew it;
 * then every burn that asks for or takes a millisecond or more corrects it with the rate it
 * measured on its own thread, and a burn on a virtual thread, whose CPU time the JDK does not
 * measure, has the calibration's thread measure a slice again. (A start-up figure alone can be 10x
 * off: taken before the JIT compiled the hash loop, or after, while the compiler threads of a busy
 * machine still wait, and every request then burns a tenth of what it asked, or ten times.)
 */
@Startup
@ApplicationScoped
public class CpuWork {

  private static final ThreadMXBean THREADS = ManagementFactory.getThreadMXBean();

  private final byte[] payload;
  private final CompletableFuture<Double> roundsPerMs = new CompletableFuture<>();
  // The rate the burns measured, half the last one's and half what it was, or the last slice the
  // calibration's thread measured again; 0 until the first.
  private volatile double learned;
  // The calibration's platform thread: the start-up calibration, then the slices virtual burns ask
  // for.
  private final ExecutorService calibration =
      Executors.newSingleThreadExecutor(
          Thread.ofPlatform().name("loomlab-cpu-calibration").daemon(true).factory());
  private final long sliceNanos;
  private final long recheckNanos;
  // When a slice was last asked for (System.nanoTime): a period ago at first, so the first virtual
  // burn asks at once; and whether one is still waiting or running (at most one is: the queue of
  // the calibration's thread holds one slice whatever recheck-ms says).
  private final AtomicLong rechecked;
  private final AtomicBoolean slicePending = new AtomicBoolean();

  @Inject
  CpuWork(MixedConfig config) {
    this(config, Double.NaN);
  }

  /**
   * With {@code startUpRate} rounds a ms taken as the start-up calibration's, where it is a number.
   */
  CpuWork(MixedConfig config, double startUpRate) {
    this.payload = payload(config.payloadBytes());
    this.sliceNanos = Math.max(1, config.calibrationMs() / 8) * 1_000_000;
    this.recheckNanos = TimeUnit.MILLISECONDS.toNanos(config.recheckMs());
    this.rechecked = new AtomicLong(System.nanoTime() - recheckNanos);
    if (Double.isNaN(startUpRate)) {
      calibration.execute(this::calibrate);
    } else {
      roundsPerMs.complete(startUpRate);
    }
  }

  @PreDestroy
  void stop() {
    calibration.shutdownNow();
  }

  /** The payload every round hashes: {@code bytes} bytes counting up from 0. */
  static byte[] payload(int bytes) {
    byte[] payload = new byte[bytes];
    for (int i = 0; i < bytes; i++) {
      payload[i] = (byte) i;
    }
    return payload;
  }

  /** Rounds that take {@code cpuMs} of CPU on this machine, as calibrated. */
  public long roundsFor(long cpuMs) {
    return Math.round(rate() * cpuMs);
  }

  private double rate() {
    double rate = learned;
    return rate > 0 ? rate : roundsPerMs.join();
  }

  /** The rate in use, for /api/info and the reports; empty until it is measured. */
  public Optional<Double> calibrated() {
    double rate = learned;
    return rate > 0 ? Optional.of(rate) : Optional.ofNullable(roundsPerMs.getNow(null));
  }

  /** {@code cpuMs} of CPU work on the calling thread. */
  public Burn burn(long cpuMs) {
    Thread current = Thread.currentThread();
    long rounds = roundsFor(cpuMs);
    long cpu0 = THREADS.getCurrentThreadCpuTime();
    long wall0 = System.nanoTime();
    byte[] digest = hash(rounds);
    long wall = System.nanoTime() - wall0;
    long cpu = cpu0 < 0 ? -1 : THREADS.getCurrentThreadCpuTime() - cpu0;
    if (cpu < 0) {
      recheck(rounds);
    } else {
      learn(cpuMs, rounds, cpu);
    }
    String hex = HexFormat.of().formatHex(digest);
    return new Burn(current.getName(), current.isVirtual(), rounds, hex, cpu, wall);
  }

  /**
   * Corrects the rate with a burn's own, when it asked for or took a millisecond or more of
   * measured CPU. Asked, too: a rate learnt while the hash loop still ran interpreted is 10-40x
   * low, and the compiled loop then burns far under a millisecond for what asked 20; were only what
   * it took counted, such burns would never correct it (CI saw 0.56 ms for 20 asked).
   */
  private void learn(long askedMs, long rounds, long cpuNanos) {
    if (rounds > 0 && cpuNanos > 0 && (cpuNanos >= 1_000_000 || askedMs >= 1)) {
      double measured = rounds / (cpuNanos / 1e6);
      learned = (rate() + measured) / 2;
    }
  }

  /**
   * A burn whose thread's CPU time is not measured (a virtual thread's): the calibration's platform
   * thread measures one slice again, with the hash loop as compiled as the burns' own, at once the
   * first time and then at most once a {@code recheck-ms}; the rate in use becomes that slice's.
   * Without it a rate taken at start-up before the JIT compiled the loop stayed 10x low in the
   * virtual modes only (measured: 0.4 ms of CPU per request asked for 5, the event loop's 5.2).
   */
  private void recheck(long rounds) {
    if (rounds == 0 || !roundsPerMs.isDone()) {
      return;
    }
    long now = System.nanoTime();
    if (now - rechecked.get() >= recheckNanos && slicePending.compareAndSet(false, true)) {
      rechecked.set(now);
      calibration.execute(
          () -> {
            try {
              learned = sliceRate();
            } finally {
              slicePending.set(false);
            }
          });
    }
  }

  private byte[] hash(long rounds) {
    MessageDigest sha = sha256();
    byte[] state = new byte[0];
    for (long r = 0; r < rounds; r++) {
      sha.update(payload);
      sha.update(state);
      state = sha.digest();
    }
    return state;
  }

  private void calibrate() {
    // In slices of an eighth of the calibration, until the rate stops rising: at start-up the JIT
    // may not have compiled the hash loop yet (on a busy machine its compiler threads wait too),
    // and a rate taken in the interpreter was measured 10-40x below the compiled one, so every
    // request then burnt a fraction of what it asked. At most 40 slices.
    try {
      double best = 0;
      int flat = 0;
      for (int i = 0; i < 40 && flat < 3; i++) {
        double rate = sliceRate();
        if (rate > best * 1.05) {
          best = rate;
          flat = 0;
        } else {
          flat++;
        }
      }
      roundsPerMs.complete(best);
    } catch (RuntimeException e) {
      roundsPerMs.completeExceptionally(e);
    }
  }

  /**
   * This thread's CPU time; where the JVM does not measure it (it answers -1), the wall clock
   * stands in, so that calibration still ends (on its idle thread the two are close).
   */
  private static long cpuNow() {
    long cpu = THREADS.getCurrentThreadCpuTime();
    return cpu < 0 ? System.nanoTime() : cpu;
  }

  /** The rounds a ms of one slice of hashing on this (platform) thread. */
  private double sliceRate() {
    long start = cpuNow();
    long rounds = spend(sliceNanos);
    return rounds / ((cpuNow() - start) / 1e6);
  }

  /** Hashes in batches until this thread has spent {@code cpuNanos}; the rounds it took. */
  private long spend(long cpuNanos) {
    long end = cpuNow() + cpuNanos;
    long rounds = 0;
    while (cpuNow() < end) {
      hash(256);
      rounds += 256;
    }
    return rounds;
  }

  private static MessageDigest sha256() {
    try {
      return MessageDigest.getInstance("SHA-256");
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every JDK has SHA-256", e);
    }
  }
}
