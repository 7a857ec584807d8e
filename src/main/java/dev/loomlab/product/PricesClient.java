package dev.loomlab.product;

import dev.loomlab.execution.EventLoopTimer;
import dev.loomlab.product.ProductView.CompetitorPrice;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.List;

/**
 * The competitor prices dependency: a pricing service's round trip, answered after its planned
 * latency (the caller's thread blocked, or an event-loop timer), with prices derived from the id.
 */
@ApplicationScoped
class PricesClient {

  private final EventLoopTimer timer;

  PricesClient(EventLoopTimer timer) {
    this.timer = timer;
  }

  List<CompetitorPrice> fetch(long id, long latencyMs) throws InterruptedException {
    Thread.sleep(latencyMs);
    return of(id);
  }

  Uni<List<CompetitorPrice>> fetchOnEventLoop(long id, long latencyMs) {
    return timer.after(latencyMs, () -> of(id));
  }

  private static List<CompetitorPrice> of(long id) {
    List<CompetitorPrice> prices = new ArrayList<>(2);
    for (String seller : List.of("acme", "globex")) {
      long cents = 500 + Math.floorMod(id * 7919 + seller.hashCode(), 99_500);
      prices.add(
          new CompetitorPrice(
              seller, BigDecimal.valueOf(cents, 2).setScale(2, RoundingMode.UNNECESSARY)));
    }
    return prices;
  }
}
