package dev.loomlab.sleep;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Knobs of the sleep workload ({@code loomlab.sleep.*}). */
@ConfigMapping(prefix = "loomlab.sleep")
public interface SleepConfig {

  /** {@code loomlab.sleep.max-ms}: the largest {@code ms} a request may ask for. */
  @WithDefault("10000")
  long maxMs();
}
