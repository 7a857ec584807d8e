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
   * ({@code loomlab.ingest.embedding-dimension}), skills ({@code loomlab.ingest.max-skills}): the
   * service refuses to start when it is below one of them (ingest's ArrayBoundCheck).
   */
  @WithDefault("1000")
  int maxArrayLength();

  /**
   * {@code loomlab.input.max-tokens}: the most JSON tokens (values, keys, brackets) one body may
   * hold across all its nesting, counted while it is parsed: each array is bounded on its own, and
   * this bounds their product (a thousand records of a thousand empty objects each). The largest
   * chunk the ingest bounds admit takes about 720,000; the service refuses to start below what it
   * needs (ingest's ArrayBoundCheck).
   */
  @WithDefault("1000000")
  long maxTokens();

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

  /**
   * {@code loomlab.input.max-request-line}: the most characters of a request's first line (method,
   * path and query, version); past it 414 with a problem document. Vert.x reads up to {@code
   * quarkus.http.limits.max-initial-line-length} (set above this), and answers a longer line
   * itself, without a body.
   */
  @WithDefault("4096")
  int maxRequestLine();

  /**
   * {@code loomlab.input.max-header-bytes}: the most bytes of a request's header names and values;
   * past it 431 with a problem document. Vert.x reads up to {@code
   * quarkus.http.limits.max-header-size} (set above this), and answers more itself, without a body.
   */
  @WithDefault("20480")
  int maxHeaderBytes();
}
