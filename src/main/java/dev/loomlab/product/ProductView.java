package dev.loomlab.product;

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import io.quarkus.runtime.annotations.RegisterForReflection;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;

/**
 * The answer of a product lookup: the four dependencies' data, how long each took, on which thread,
 * and the total (the slowest of the four when they really ran in parallel); through which clients
 * ({@code blocking}: JDBC and the JDK HttpClient, {@code reactive}: the Vert.x clients).
 */
public record ProductView(
    String mode,
    String clients,
    Product product,
    Stock stock,
    List<Long> recommendations,
    List<CompetitorPrice> competitorPrices,
    Map<String, Long> latencyMs,
    Map<String, String> threads,
    boolean subTasksVirtual,
    long totalMs) {

  public record Product(long id, String name, String category, BigDecimal price) {}

  // Also read from the stock service with an ObjectMapper: registered for native. A tolerant
  // reader: the service's own bodies refuse unknown keys, a dependency may add fields.
  @RegisterForReflection
  @JsonIgnoreProperties(ignoreUnknown = true)
  public record Stock(long productId, int available, String warehouse) {}

  public record CompetitorPrice(String seller, BigDecimal price) {}
}
