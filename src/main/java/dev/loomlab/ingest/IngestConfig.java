package dev.loomlab.ingest;

import io.quarkus.runtime.configuration.MemorySize;
import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;

/** Knobs of the chunked writes of every domain ({@code loomlab.ingest.*}); the seed's values. */
@ConfigMapping(prefix = "loomlab.ingest")
public interface IngestConfig {

  /** {@code loomlab.ingest.max-chunk}: most records one batch request may carry. */
  @WithDefault("1000")
  int maxChunk();

  /** {@code loomlab.ingest.jdbc-batch-size}: rows per JDBC batch (seed: 300). */
  @WithDefault("300")
  int jdbcBatchSize();

  /**
   * {@code loomlab.ingest.embedding-dimension}: length of every embedding; must equal every
   * domain's {@code vector(n)} column, which readiness checks ({@link EmbeddingColumnCheck}).
   */
  @WithDefault("384")
  int embeddingDimension();

  /**
   * {@code loomlab.ingest.simulated-round-trip}: extra latency per statement round trip, to show on
   * one machine the network the seed's database sat behind (0: none).
   */
  @WithDefault("0ms")
  Duration simulatedRoundTrip();

  /** {@code loomlab.ingest.max-skills}: most skills per record. */
  @WithDefault("50")
  int maxSkills();

  /**
   * {@code loomlab.ingest.conflict-retries}: how many times a transaction that failed on a deadlock
   * or serialization failure with a concurrent writer is retried before the client gets 503 {@code
   * write-conflict}.
   */
  @WithDefault("4")
  int conflictRetries();

  /**
   * {@code loomlab.ingest.conflict-backoff}: the first retry waits a random time up to this, each
   * further one up to twice the previous (full jitter), with no connection held.
   */
  @WithDefault("20ms")
  Duration conflictBackoff();

  /** The gRPC stream of chunks ({@code loomlab.ingest.grpc.*}). */
  Grpc grpc();

  interface Grpc {
    /**
     * {@code loomlab.ingest.grpc.max-message-size}: the largest chunk message the stream accepts,
     * the gRPC counterpart of {@code quarkus.http.limits.max-body-size} (its default, 10M); a
     * larger one ends the call with {@code RESOURCE_EXHAUSTED} before it is read.
     */
    @WithDefault("10M")
    MemorySize maxMessageSize();

    /**
     * {@code loomlab.ingest.grpc.idle-timeout}: the longest a stream waits for its first chunk once
     * opened, and for its next chunk (or its end) once the last was acknowledged; past it the call
     * ends {@code DEADLINE_EXCEEDED}, so a client gone quiet does not hold a stream open for ever.
     */
    @WithDefault("60s")
    Duration idleTimeout();
  }
}
