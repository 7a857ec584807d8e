package dev.loomlab.sleep;

import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/** The longest sleep a request may ask for. */
@ApplicationScoped
class SleepSettings implements PublishedSettings {

  private final SleepConfig config;

  SleepSettings(SleepConfig config) {
    this.config = config;
  }

  @Override
  public int order() {
    return 30;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    settings.put("sleep.max-ms", config.maxMs());
  }
}
