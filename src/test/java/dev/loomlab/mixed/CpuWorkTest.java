package dev.loomlab.mixed;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The rate of rounds a ms stays true where the burns run on virtual threads, whose CPU time the JDK
 * does not measure: a start-up rate taken before the JIT compiled the hash loop is measured again
 * by the calibration's platform thread.
 */
class CpuWorkTest {

  // One round a ms: below what even an interpreted hash loop does (about 100; compiled, about 1,250
  // on our machines), the kind of start-up figure that left virtual burns 10x short.
  private static final double LOW = 1.0;

  private CpuWork work;

  @AfterEach
  void stop() {
    work.stop();
  }

  @Test
  void aBurnOnAVirtualThreadHasALowStartUpRateMeasuredAgain() throws InterruptedException {
    work = new CpuWork(config(3_600_000), LOW);
    Thread.ofVirtual().start(() -> work.burn(5)).join();
    assertThat("the calibration's slice is measured", awaitRateAbove(LOW), greaterThan(10.0));
  }

  @Test
  void aBurnOnAPlatformThreadCorrectsTheRateFromItsOwnCpuTime() throws InterruptedException {
    work = new CpuWork(config(3_600_000), LOW);
    Thread.ofPlatform().start(() -> work.burn(5)).join();
    // Half the start-up rate and half the burn's own, at once: the burn took 5 rounds, far under a
    // ms of CPU on any machine, so its own rate is well above the start-up's.
    assertThat(work.calibrated().orElseThrow(), greaterThan(LOW));
  }

  /** The rate in use once it is above {@code floor}, waited for up to a minute (a busy machine). */
  private double awaitRateAbove(double floor) throws InterruptedException {
    double rate = work.calibrated().orElseThrow();
    for (int i = 0; i < 600 && rate <= floor; i++) {
      Thread.sleep(100);
      rate = work.calibrated().orElseThrow();
    }
    return rate;
  }

  private static MixedConfig config(long recheckMs) {
    return new MixedConfig() {
      @Override
      public long maxCpuMs() {
        return 100;
      }

      @Override
      public long maxWaitMs() {
        return 10_000;
      }

      @Override
      public int payloadBytes() {
        return 1024;
      }

      @Override
      public long calibrationMs() {
        return 80;
      }

      @Override
      public long recheckMs() {
        return recheckMs;
      }
    };
  }
}
