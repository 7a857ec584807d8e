package dev.loomlab.product;

import dev.loomlab.execution.FanOutExecutors;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.problem.ProblemException;
import dev.loomlab.product.ProductView.Product;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The four dependencies through the blocking clients, each a sub-task on the executor of the
 * request's model (a platform fan-out pool, or a virtual thread each), awaited within the lookup's
 * timeout; a late or failed one cancels (interrupts) its siblings.
 */
@ApplicationScoped
class ThreadedFanOut {

  private final ProductConfig config;
  private final CatalogRepository catalog;
  private final StockClient stock;
  private final RecommendationsClient recommendations;
  private final PricesClient prices;
  private final FanOutExecutors executors;
  private final ProductMeters meters;

  ThreadedFanOut(
      ProductConfig config,
      CatalogRepository catalog,
      StockClient stock,
      RecommendationsClient recommendations,
      PricesClient prices,
      FanOutExecutors executors,
      ProductMeters meters) {
    this.config = config;
    this.catalog = catalog;
    this.stock = stock;
    this.recommendations = recommendations;
    this.prices = prices;
    this.executors = executors;
    this.meters = meters;
  }

  Lookup lookup(Mode mode, long id, LatencyPlan plan, WaitBudget budget) {
    Calls calls = new Calls(mode, executors.executor(mode));
    long deadline = System.nanoTime() + config.timeout().toNanos();
    Future<Answered<Optional<Product>>> product;
    Future<Answered<ProductView.Stock>> stockLevel;
    Future<Answered<List<Long>>> recommended;
    Future<Answered<List<ProductView.CompetitorPrice>>> competitors;
    try {
      product =
          calls.submit(
              Dependency.CATALOG,
              () ->
                  catalog.find(
                      budget, id, plan.of(Dependency.CATALOG), config.catalog().latencyIn()));
      stockLevel = calls.submit(Dependency.STOCK, () -> stock.fetch(id, plan.of(Dependency.STOCK)));
      recommended =
          calls.submit(
              Dependency.RECOMMENDATIONS,
              () -> recommendations.fetch(id, plan.of(Dependency.RECOMMENDATIONS)));
      competitors =
          calls.submit(Dependency.PRICES, () -> prices.fetch(id, plan.of(Dependency.PRICES)));
    } catch (RejectedExecutionException e) {
      calls.cancelAll();
      throw ProblemException.unavailable(
          "the " + mode.id() + " fan-out pool is full (loomlab.execution.fan-out.*); retry later",
          1);
    }
    Answered<Optional<Product>> found = calls.await(Dependency.CATALOG, product, deadline);
    if (found.value().isEmpty()) {
      calls.cancelAll();
      throw ProblemException.notFound("no product with id " + id);
    }
    return new Lookup(
        new Answered<>(found.value().get(), found.millis(), found.thread(), found.virtual()),
        calls.await(Dependency.STOCK, stockLevel, deadline),
        calls.await(Dependency.RECOMMENDATIONS, recommended, deadline),
        calls.await(Dependency.PRICES, competitors, deadline));
  }

  /** The sub-tasks of one lookup: submitted, timed, awaited, cancelled together. */
  private final class Calls {
    private final Mode mode;
    private final ExecutorService executor;
    private final Map<Dependency, Future<?>> futures = new EnumMap<>(Dependency.class);

    Calls(Mode mode, ExecutorService executor) {
      this.mode = mode;
      this.executor = executor;
    }

    <T> Future<Answered<T>> submit(Dependency dependency, Callable<T> call) {
      Timer timer = meters.dependency(mode, dependency);
      Future<Answered<T>> future =
          executor.submit(
              () -> {
                Runnable ended = meters.started();
                long t0 = System.nanoTime();
                try {
                  T value = call.call();
                  long nanos = System.nanoTime() - t0;
                  timer.record(nanos, TimeUnit.NANOSECONDS);
                  Thread t = Thread.currentThread();
                  return new Answered<>(
                      value, TimeUnit.NANOSECONDS.toMillis(nanos), t.getName(), t.isVirtual());
                } finally {
                  ended.run();
                }
              });
      futures.put(dependency, future);
      return future;
    }

    <T> Answered<T> await(Dependency dependency, Future<Answered<T>> future, long deadline) {
      try {
        return future.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
      } catch (TimeoutException e) {
        List<String> late =
            futures.entrySet().stream()
                .filter(f -> !f.getValue().isDone())
                .map(f -> f.getKey().id())
                .toList();
        cancelAll();
        throw Failures.late(config.timeout().toMillis(), late);
      } catch (ExecutionException e) {
        cancelAll();
        throw Failures.failed(dependency, e.getCause());
      } catch (InterruptedException e) {
        cancelAll();
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for dependencies", e);
      }
    }

    /** An answered request leaves nothing behind: late or failed ones' siblings interrupted. */
    void cancelAll() {
      futures.values().forEach(f -> f.cancel(true));
    }
  }
}
