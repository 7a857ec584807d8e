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
   * {@code loomlab.mixed.calibration-ms}: CPU spent at start-up measuring the rounds per ms (the
   * first half warms the code up, the second half is measured).
   */
  @WithDefault("400")
  long calibrationMs();
}
