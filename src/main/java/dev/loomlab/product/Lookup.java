package dev.loomlab.product;

import dev.loomlab.execution.Clients;
import dev.loomlab.execution.Mode;
import dev.loomlab.product.ProductView.CompetitorPrice;
import dev.loomlab.product.ProductView.Product;
import dev.loomlab.product.ProductView.Stock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The four answers of one lookup, typed, whichever fan-out gathered them. */
record Lookup(
    Answered<Product> catalog,
    Answered<Stock> stock,
    Answered<List<Long>> recommendations,
    Answered<List<CompetitorPrice>> prices) {

  ProductView view(Mode mode, Clients clients, long totalMs) {
    Map<String, Long> latency = new LinkedHashMap<>();
    Map<String, String> threads = new LinkedHashMap<>();
    boolean allVirtual = true;
    for (Dependency d : Dependency.values()) {
      Answered<?> a = of(d);
      latency.put(d.id(), a.millis());
      threads.put(d.id(), a.thread());
      allVirtual &= a.virtual();
    }
    return new ProductView(
        mode.id(),
        clients.id(),
        catalog.value(),
        stock.value(),
        recommendations.value(),
        prices.value(),
        latency,
        threads,
        allVirtual,
        totalMs);
  }

  private Answered<?> of(Dependency d) {
    return switch (d) {
      case CATALOG -> catalog;
      case STOCK -> stock;
      case RECOMMENDATIONS -> recommendations;
      case PRICES -> prices;
    };
  }
}
