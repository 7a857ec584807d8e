package dev.loomlab.buffers;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Knobs of the buffers workload, a per-thread cache against a shared pool ({@code
 * loomlab.buffers.*}).
 */
@ConfigMapping(prefix = "loomlab.buffers")
public interface BuffersConfig {

  /**
   * {@code loomlab.buffers.kb}: the scratch buffer each request encodes into, in KiB (64: the order
   * of the byte and char buffers Jackson's per-thread recycler kept).
   */
  @WithDefault("64")
  int kb();

  /** {@code loomlab.buffers.pool-size}: the most buffers the shared pool keeps for reuse. */
  @WithDefault("256")
  int poolSize();

  /** {@code loomlab.buffers.max-wait-ms}: the longest wait a request may ask for. */
  @WithDefault("10000")
  long maxWaitMs();
}
