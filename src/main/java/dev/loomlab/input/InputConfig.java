package dev.loomlab.input;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.util.Optional;

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
   * ({@code loomlab.ingest.embedding-dimension}), skills ({@code loomlab.ingest.max-skills}). Keep
   * it at least the largest of them: nothing checks that, and a body past it is refused while
   * parsed, before those bounds are checked.
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

  /**
   * {@code loomlab.input.body-heap}: the heap all request bodies in flight may take together,
   * reckoned at {@link #bodyHeapFactor()} times their declared length; past it a request waits
   * within {@code loomlab.execution.max-wait}, then gets 503. Unset: a quarter of the maximum heap.
   */
  Optional<MemorySize> bodyHeap();

  /**
   * {@code loomlab.input.body-heap-factor}: the heap one body takes per byte of it while it is read
   * and parsed (the bytes themselves, then the strings and numbers built of them; measured: a 10 MB
   * body of one embedding allocates about 14 MB before it is refused).
   */
  @WithDefault("3")
  int bodyHeapFactor();
}
