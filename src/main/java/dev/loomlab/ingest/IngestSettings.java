package dev.loomlab.ingest;

import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/** The chunk writers' bounds: chunk size, batch size, retries, the gRPC message limit. */
@ApplicationScoped
class IngestSettings implements PublishedSettings {

  private final IngestConfig config;

  IngestSettings(IngestConfig config) {
    this.config = config;
  }

  @Override
  public int order() {
    return 50;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    settings.put("ingest.max-chunk", config.maxChunk());
    settings.put("ingest.jdbc-batch-size", config.jdbcBatchSize());
    settings.put("ingest.simulated-round-trip-ms", config.simulatedRoundTrip().toMillis());
    settings.put("ingest.conflict-retries", config.conflictRetries());
    settings.put("ingest.grpc.max-message-bytes", config.grpc().maxMessageSize().asLongValue());
  }
}
