package dev.loomlab.recruits;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Knobs of the chunked writes ({@code loomlab.recruits.*}); the seed's values by default. */
@ConfigMapping(prefix = "loomlab.recruits")
public interface RecruitsConfig {

  /** {@code loomlab.recruits.max-chunk}: most records one batch request may carry. */
  @WithDefault("1000")
  int maxChunk();

  /** {@code loomlab.recruits.jdbc-batch-size}: rows per JDBC batch (seed: 300). */
  @WithDefault("300")
  int jdbcBatchSize();

  /**
   * {@code loomlab.recruits.embedding-dimension}: length of every embedding; must equal the {@code
   * vector(n)} column, checked at start-up.
   */
  @WithDefault("384")
  int embeddingDimension();

  /**
   * {@code loomlab.recruits.simulated-round-trip}: extra latency per statement round trip, to show
   * on one machine the network the seed's database sat behind (0: none).
   */
  @WithDefault("0ms")
  Duration simulatedRoundTrip();

  /** {@code loomlab.recruits.max-skills}: most skills per recruit. */
  @WithDefault("50")
  int maxSkills();
}
