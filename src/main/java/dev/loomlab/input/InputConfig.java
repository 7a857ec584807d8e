package dev.loomlab.input;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/**
 * Bounds every JSON body meets while it is parsed ({@code loomlab.input.*}), before anything is
 * built in proportion to it: a body that crosses one is refused with 400 at the point it crosses.
 * The size of a whole body is {@code quarkus.http.limits.max-body-size} (413).
 */
@ConfigMapping(prefix = "loomlab.input")
public interface InputConfig {

  /**
   * {@code loomlab.input.max-array-length}: the most values one JSON array may hold. The largest
   * array an endpoint takes: a chunk's records ({@code loomlab.ingest.max-chunk}), an embedding
   * ({@code loomlab.ingest.embedding-dimension}), skills ({@code loomlab.ingest.max-skills});
   * checked against them at start-up.
   */
  @WithDefault("1000")
  int maxArrayLength();

  /**
   * {@code loomlab.input.max-string-length}: the most characters of one JSON string (the longest
   * field, a description or profile, takes 20,000).
   */
  @WithDefault("20000")
  int maxStringLength();

  /** {@code loomlab.input.max-nesting-depth}: the deepest nesting of arrays and objects. */
  @WithDefault("8")
  int maxNestingDepth();

  /** {@code loomlab.input.max-number-length}: the most characters of one JSON number. */
  @WithDefault("40")
  int maxNumberLength();
}
