package dev.loomlab.pinning;

import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/** The longest a request may hold its lock, and how many locks requests are spread over. */
@ApplicationScoped
class PinningSettings implements PublishedSettings {

  private final PinningConfig config;

  PinningSettings(PinningConfig config) {
    this.config = config;
  }

  @Override
  public int order() {
    return 90;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    settings.put("pinning.max-ms", config.maxMs());
    settings.put("pinning.stripes", config.stripes());
  }
}
