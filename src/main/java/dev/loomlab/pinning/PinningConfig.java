package dev.loomlab.pinning;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** Knobs of the pinning demo ({@code loomlab.pinning.*}). */
@ConfigMapping(prefix = "loomlab.pinning")
public interface PinningConfig {

  /** {@code loomlab.pinning.max-ms}: the longest a request may block while holding its lock. */
  @WithDefault("2000")
  long maxMs();

  /**
   * {@code loomlab.pinning.stripes}: how many shared locks requests are spread over (round robin);
   * 1 serialises every request on one lock.
   */
  @WithDefault("64")
  int stripes();
}
