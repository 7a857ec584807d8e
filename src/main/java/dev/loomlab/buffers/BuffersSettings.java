package dev.loomlab.buffers;

import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/** Each request's scratch buffer, the shared pool's size and the longest wait a request may ask. */
@ApplicationScoped
class BuffersSettings implements PublishedSettings {

  private final BuffersConfig config;

  BuffersSettings(BuffersConfig config) {
    this.config = config;
  }

  @Override
  public int order() {
    return 85;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    settings.put("buffers.kb", config.kb());
    settings.put("buffers.pool-size", config.poolSize());
    settings.put("buffers.max-wait-ms", config.maxWaitMs());
  }
}
