package dev.loomlab.ingest;

import dev.loomlab.input.InputConfig;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;

/**
 * Refuses to start when {@code loomlab.input.max-array-length} is below an ingest bound: the JSON
 * parser would then refuse, as "too many values", a chunk, an embedding or a skill list the ingest
 * bounds admit.
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
