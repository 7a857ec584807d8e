package dev.loomlab.product;

import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Each dependency's latency range, where it is simulated, and the lookup's timeout. */
@ApplicationScoped
class ProductSettings implements PublishedSettings {

  private final ProductConfig config;

  ProductSettings(ProductConfig config) {
    this.config = config;
  }

  @Override
  public int order() {
    return 40;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    Map<String, List<Long>> latency = new LinkedHashMap<>();
    latency.put("catalog", range(config.catalog()));
    latency.put("stock", range(config.stock()));
    latency.put("recommendations", range(config.recommendations()));
    latency.put("prices", range(config.prices()));
    settings.put("product.latency-ms", latency);
    settings.put("product.latency-in", config.catalog().latencyIn().name());
    settings.put("product.timeout-ms", config.timeout().toMillis());
  }

  private static List<Long> range(ProductConfig.Latency latency) {
    return List.of(latency.minMs(), latency.maxMs());
  }
}
