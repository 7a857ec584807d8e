package dev.loomlab.product;

import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.problem.ProblemException;
import dev.loomlab.product.ProductView.Product;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Arrays;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The four dependencies through the non-blocking clients, combined with Mutiny: the catalog through
 * the reactive pool, stock through the Vert.x web client, the other two on timers; the lookup's
 * timeout stated in the pipeline. Nothing here blocks: it runs on the event loop, or is awaited by
 * a virtual thread (the virtual mode's {@code clients=reactive}).
 */
@ApplicationScoped
class EventLoopFanOut {

  private final ProductConfig config;
  private final CatalogRepository catalog;
  private final StockClient stock;
  private final RecommendationsClient recommendations;
  private final PricesClient prices;
  private final ProductMeters meters;

  EventLoopFanOut(
      ProductConfig config,
      CatalogRepository catalog,
      StockClient stock,
      RecommendationsClient recommendations,
      PricesClient prices,
      ProductMeters meters) {
    this.config = config;
    this.catalog = catalog;
    this.stock = stock;
    this.recommendations = recommendations;
    this.prices = prices;
    this.meters = meters;
  }

  Uni<Lookup> lookup(Mode mode, long id, LatencyPlan plan, WaitBudget budget) {
    Set<Dependency> answered = ConcurrentHashMap.newKeySet();
    Uni<Product> product =
        catalog
            .findOnEventLoop(budget, id, plan.of(Dependency.CATALOG), config.catalog().latencyIn())
            .map(found -> found(found, id));
    return Uni.combine()
        .all()
        .unis(
            timed(mode, Dependency.CATALOG, product, answered),
            timed(
                mode,
                Dependency.STOCK,
                stock.fetchOnEventLoop(id, plan.of(Dependency.STOCK)),
                answered),
            timed(
                mode,
                Dependency.RECOMMENDATIONS,
                recommendations.fetchOnEventLoop(id, plan.of(Dependency.RECOMMENDATIONS)),
                answered),
            timed(
                mode,
                Dependency.PRICES,
                prices.fetchOnEventLoop(id, plan.of(Dependency.PRICES)),
                answered))
        .with(Lookup::new)
        .ifNoItem()
        .after(config.timeout())
        .failWith(() -> Failures.late(config.timeout().toMillis(), late(answered)));
  }

  private static Product found(Optional<Product> product, long id) {
    return product.orElseThrow(() -> ProblemException.notFound("no product with id " + id));
  }

  /** One dependency's call, timed and counted as the threaded sub-tasks are. */
  private <T> Uni<Answered<T>> timed(
      Mode mode, Dependency dependency, Uni<T> call, Set<Dependency> answered) {
    Timer timer = meters.dependency(mode, dependency);
    return Uni.createFrom()
        .deferred(
            () -> {
              Runnable ended = meters.started();
              long t0 = System.nanoTime();
              return call.map(
                      value -> {
                        long nanos = System.nanoTime() - t0;
                        timer.record(nanos, TimeUnit.NANOSECONDS);
                        answered.add(dependency);
                        return new Answered<>(
                            value,
                            TimeUnit.NANOSECONDS.toMillis(nanos),
                            Thread.currentThread().getName(),
                            false);
                      })
                  .onTermination()
                  .invoke(ended);
            })
        .onFailure(failure -> !(failure instanceof ProblemException))
        .transform(failure -> Failures.failed(dependency, failure));
  }

  private static java.util.List<String> late(Set<Dependency> answered) {
    return Arrays.stream(Dependency.values())
        .filter(d -> !answered.contains(d))
        .map(Dependency::id)
        .toList();
  }
}
