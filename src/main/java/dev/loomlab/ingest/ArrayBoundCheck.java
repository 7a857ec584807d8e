package dev.loomlab.ingest;

import dev.loomlab.input.InputConfig;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Refuses to start when {@code loomlab.input.max-array-length} is below an ingest bound, or {@code
 * loomlab.input.max-tokens} below the largest chunk: the JSON parser would then refuse, as "too
 * many values", a chunk, an embedding or a skill list the ingest bounds admit.
 */
@ApplicationScoped
class ArrayBoundCheck {

  private final InputConfig input;
  private final IngestConfig ingest;

  ArrayBoundCheck(InputConfig input, IngestConfig ingest) {
    this.input = input;
    this.ingest = ingest;
  }

  void check(@Observes StartupEvent event) {
    check("loomlab.ingest.max-chunk", ingest.maxChunk());
    check("loomlab.ingest.embedding-dimension", ingest.embeddingDimension());
    check("loomlab.ingest.max-skills", ingest.maxSkills());
    long needed = tokensOfLargestChunk(ingest);
    if (needed > input.maxTokens()) {
      throw new IllegalStateException(
          "loomlab.input.max-tokens="
              + input.maxTokens()
              + " would refuse the largest chunk the ingest bounds admit (about "
              + needed
              + " tokens); raise it to at least that");
    }
  }

  /**
   * The JSON tokens of the largest chunk: per record its embedding, its skills (an object of two
   * keys and values each) and its other fields (at most 16 keys and values), with brackets.
   */
  static long tokensOfLargestChunk(IngestConfig ingest) {
    long record = (ingest.embeddingDimension() + 2L) + (ingest.maxSkills() * 6L + 2) + 2 * 16 + 2;
    return ingest.maxChunk() * record + 2;
  }

  private void check(String name, int bound) {
    if (bound > input.maxArrayLength()) {
      throw new IllegalStateException(
          name
              + "="
              + bound
              + " is over loomlab.input.max-array-length="
              + input.maxArrayLength()
              + ", which would refuse such arrays while parsing; raise max-array-length to at least "
              + bound);
    }
  }
}
