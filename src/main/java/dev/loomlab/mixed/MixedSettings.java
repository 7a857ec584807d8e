package dev.loomlab.mixed;

import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/** The most CPU a request may ask for, and this machine's rate of the CPU work. */
@ApplicationScoped
class MixedSettings implements PublishedSettings {

  private final MixedConfig config;
  private final CpuWork cpuWork;

  MixedSettings(MixedConfig config, CpuWork cpuWork) {
    this.config = config;
    this.cpuWork = cpuWork;
  }

  @Override
  public int order() {
    return 80;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    settings.put("mixed.max-cpu-ms", config.maxCpuMs());
    // SHA-256 rounds of loomlab.mixed.payload-bytes per ms of CPU, measured at start-up.
    settings.put("mixed.rounds-per-ms", cpuWork.calibrated().map(Math::round).orElse(null));
  }
}
