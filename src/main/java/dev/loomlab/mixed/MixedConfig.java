package dev.loomlab.mixed;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Knobs of the mixed workload, CPU then a wait per request ({@code loomlab.mixed.*}). */
@ConfigMapping(prefix = "loomlab.mixed")
public interface MixedConfig {

  /** {@code loomlab.mixed.max-cpu-ms}: the most CPU a request may ask for. */
  @WithDefault("100")
  long maxCpuMs();

  /** {@code loomlab.mixed.max-wait-ms}: the longest wait a request may ask for. */
  @WithDefault("10000")
  long maxWaitMs();

  /** {@code loomlab.mixed.payload-bytes}: the bytes hashed in each round of the CPU work. */
  @WithDefault("1024")
  int payloadBytes();

  /**
   * {@code loomlab.mixed.calibration-ms}: the start-up calibration of the rounds per ms measures in
   * slices of an eighth of this, until three slices in a row do not beat the best rate by 5 % (the
   * JIT has compiled the loop), at most 40 slices.
   */
  @WithDefault("400")
  long calibrationMs();

  /**
   * {@code loomlab.mixed.recheck-ms}: a burn on a virtual thread cannot correct the rate itself
   * (the JDK measures no CPU time of a virtual thread), so it asks the calibration's platform
   * thread to measure one slice again, at once the first time and then at most once in this many ms
   * (a slice of 50 ms every 5 s: 1 % of a core, only while virtual threads burn).
   */
  @WithDefault("5000")
  long recheckMs();
}
