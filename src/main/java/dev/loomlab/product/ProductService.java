package dev.loomlab.product;

import dev.loomlab.execution.Clients;
import dev.loomlab.execution.FanOutExecutors;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.observability.WorkloadMetrics;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.ProblemException;
import dev.loomlab.product.ProductView.CompetitorPrice;
import dev.loomlab.product.ProductView.Product;
import dev.loomlab.product.ProductView.Stock;
import dev.loomlab.reactive.EventLoopTimer;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.ConnectException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
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
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A product lookup (seed C): four slow dependencies called in parallel on an executor of the
 * request's model (or, in the reactive mode, combined on the event loop), so the answer takes as
 * long as the slowest of them, not their sum.
 */
@ApplicationScoped
public class ProductService {

  private final ProductConfig config;
  private final CatalogRepository catalog;
  private final StockClient stock;
  private final FanOutExecutors executors;
  private final WaitBudgets budgets;
  private final EventLoopTimer timer;
  private final Map<Mode, Timer> lookupTimers;
  private final Map<Mode, Map<Dependency, Timer>> dependencyTimers = new EnumMap<>(Mode.class);
  private final AtomicInteger runningSubTasks = new AtomicInteger();

  ProductService(
      ProductConfig config,
      CatalogRepository catalog,
      StockClient stock,
      FanOutExecutors executors,
      WaitBudgets budgets,
      EventLoopTimer timer,
      WorkloadMetrics metrics) {
    this.config = config;
    this.catalog = catalog;
    this.stock = stock;
    this.executors = executors;
    this.budgets = budgets;
    this.timer = timer;
    this.lookupTimers = metrics.timers("product");
    for (Mode mode : Mode.values()) {
      Map<Dependency, Timer> timers = new EnumMap<>(Dependency.class);
      for (Dependency d : Dependency.values()) {
        timers.put(
            d,
            Timer.builder("loomlab.dependency")
                .description("Time of one dependency of the product lookup")
                .tag("dependency", d.id())
                .tag("mode", mode.id())
                .register(metrics.registry()));
      }
      dependencyTimers.put(mode, timers);
    }
    Gauge.builder("loomlab.fanout.running", runningSubTasks, AtomicInteger::get)
        .description("Sub-tasks of product lookups running now")
        .tag("workload", "product")
        .register(metrics.registry());
  }

  /**
   * The lookup on the request's thread: the dependencies on the mode's fan-out executor through the
   * blocking clients, or ({@code clients=reactive}, the virtual mode's variant) combined with
   * Mutiny through the reactive clients and awaited there.
   */
  public ProductView lookup(Mode mode, long id, Clients clients) {
    if (clients == Clients.REACTIVE) {
      return combined(mode, id).await().indefinitely();
    }
    return lookup(mode, id);
  }

  private ProductView lookup(Mode mode, long id) {
    Bounds.check("id", id, 1, Long.MAX_VALUE);
    LatencyPlan plan = LatencyPlan.draw(config, id);
    long start = System.nanoTime();
    long deadline = start + config.timeout().toNanos();
    ExecutorService executor = executors.executor(mode);
    WaitBudget budget = budgets.current();

    Map<Dependency, Future<Outcome<?>>> futures = new EnumMap<>(Dependency.class);
    try {
      futures.put(
          Dependency.CATALOG,
          submit(
              executor,
              mode,
              Dependency.CATALOG,
              () ->
                  catalog.find(
                      budget, id, plan.of(Dependency.CATALOG), config.catalog().latencyIn())));
      futures.put(
          Dependency.STOCK,
          submit(
              executor, mode, Dependency.STOCK, () -> stock.fetch(id, plan.of(Dependency.STOCK))));
      futures.put(
          Dependency.RECOMMENDATIONS,
          submit(
              executor,
              mode,
              Dependency.RECOMMENDATIONS,
              () -> recommendations(id, plan.of(Dependency.RECOMMENDATIONS))));
      futures.put(
          Dependency.PRICES,
          submit(
              executor,
              mode,
              Dependency.PRICES,
              () -> competitorPrices(id, plan.of(Dependency.PRICES))));
    } catch (RejectedExecutionException e) {
      cancelAll(futures);
      throw ProblemException.unavailable(
          "the " + mode.id() + " fan-out pool is full (loomlab.execution.fan-out.*); retry later",
          1);
    }

    Map<Dependency, Outcome<?>> outcomes = new EnumMap<>(Dependency.class);
    for (Map.Entry<Dependency, Future<Outcome<?>>> entry : futures.entrySet()) {
      Dependency dependency = entry.getKey();
      try {
        long remaining = Math.max(0, deadline - System.nanoTime());
        Outcome<?> outcome = entry.getValue().get(remaining, TimeUnit.NANOSECONDS);
        outcomes.put(dependency, outcome);
        if (dependency == Dependency.CATALOG && ((Optional<?>) outcome.value()).isEmpty()) {
          cancelAll(futures);
          throw ProblemException.notFound("no product with id " + id);
        }
      } catch (TimeoutException e) {
        List<String> late =
            futures.entrySet().stream()
                .filter(f -> !f.getValue().isDone())
                .map(f -> f.getKey().id())
                .toList();
        cancelAll(futures);
        throw ProblemException.gatewayTimeout(
            "no answer within "
                + config.timeout().toMillis()
                + " ms from: "
                + String.join(", ", late));
      } catch (ExecutionException e) {
        cancelAll(futures);
        throw ProblemException.gatewayTimeout(
            "dependency " + dependency.id() + " failed: " + whatFailed(e.getCause()));
      } catch (InterruptedException e) {
        cancelAll(futures);
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while waiting for dependencies", e);
      }
    }
    long totalNanos = System.nanoTime() - start;
    lookupTimers.get(mode).record(totalNanos, TimeUnit.NANOSECONDS);
    return view(mode, Clients.BLOCKING, outcomes, TimeUnit.NANOSECONDS.toMillis(totalNanos));
  }

  /**
   * The reactive form: the same four dependencies combined with Mutiny on the event loop (the
   * catalog through the reactive pool, stock through the Vert.x web client, the other two on
   * timers), the same timeout, the same answer.
   */
  public Uni<ProductView> lookupOnEventLoop(long id) {
    return combined(Mode.REACTIVE, id);
  }

  private Uni<ProductView> combined(Mode mode, long id) {
    Bounds.check("id", id, 1, Long.MAX_VALUE);
    LatencyPlan plan = LatencyPlan.draw(config, id);
    long start = System.nanoTime();
    Map<Dependency, Outcome<?>> answered =
        Collections.synchronizedMap(new EnumMap<>(Dependency.class));
    Uni<Optional<Product>> product =
        catalog.findOnEventLoop(
            budgets.current(), id, plan.of(Dependency.CATALOG), config.catalog().latencyIn());
    return Uni.combine()
        .all()
        .unis(
            timedCall(mode, Dependency.CATALOG, product.map(p -> found(p, id)), answered),
            timedCall(
                mode,
                Dependency.STOCK,
                stock.fetchOnEventLoop(id, plan.of(Dependency.STOCK)),
                answered),
            timedCall(
                mode,
                Dependency.RECOMMENDATIONS,
                timer.after(plan.of(Dependency.RECOMMENDATIONS), () -> recommendationsOf(id)),
                answered),
            timedCall(
                mode,
                Dependency.PRICES,
                timer.after(plan.of(Dependency.PRICES), () -> competitorPricesOf(id)),
                answered))
        .discardItems()
        .ifNoItem()
        .after(config.timeout())
        .failWith(() -> lateAnswers(answered))
        .map(
            done -> {
              long totalNanos = System.nanoTime() - start;
              lookupTimers.get(mode).record(totalNanos, TimeUnit.NANOSECONDS);
              return view(
                  mode, Clients.REACTIVE, answered, TimeUnit.NANOSECONDS.toMillis(totalNanos));
            });
  }

  private static Optional<Product> found(Optional<Product> product, long id) {
    if (product.isEmpty()) {
      throw ProblemException.notFound("no product with id " + id);
    }
    return product;
  }

  /** One dependency's call, timed and counted as the threaded sub-tasks are. */
  private <T> Uni<T> timedCall(
      Mode mode, Dependency dependency, Uni<T> call, Map<Dependency, Outcome<?>> answered) {
    Timer timer = dependencyTimers.get(mode).get(dependency);
    return Uni.createFrom()
        .deferred(
            () -> {
              runningSubTasks.incrementAndGet();
              long t0 = System.nanoTime();
              return call.invoke(
                      value -> {
                        long nanos = System.nanoTime() - t0;
                        timer.record(nanos, TimeUnit.NANOSECONDS);
                        answered.put(
                            dependency,
                            new Outcome<>(
                                value,
                                TimeUnit.NANOSECONDS.toMillis(nanos),
                                Thread.currentThread().getName(),
                                false));
                      })
                  .onTermination()
                  .invoke(runningSubTasks::decrementAndGet);
            })
        .onFailure(failure -> !(failure instanceof ProblemException))
        .transform(
            failure ->
                ProblemException.gatewayTimeout(
                    "dependency " + dependency.id() + " failed: " + whatFailed(failure)));
  }

  /** A dependency's failure for a client: what went wrong, never a Java class name. */
  static String whatFailed(Throwable failure) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "cannot connect";
      }
    }
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t.getMessage() != null && !t.getMessage().isBlank()) {
        return t.getMessage();
      }
    }
    return "no reason given";
  }

  private ProblemException lateAnswers(Map<Dependency, Outcome<?>> answered) {
    List<String> late = new ArrayList<>();
    for (Dependency d : Dependency.values()) {
      if (!answered.containsKey(d)) {
        late.add(d.id());
      }
    }
    return ProblemException.gatewayTimeout(
        "no answer within " + config.timeout().toMillis() + " ms from: " + String.join(", ", late));
  }

  /** What one dependency answered, how long it took and on which thread. */
  private record Outcome<T>(T value, long millis, String thread, boolean virtual) {}

  private <T> Future<Outcome<?>> submit(
      ExecutorService executor, Mode mode, Dependency dependency, Callable<T> call) {
    Timer timer = dependencyTimers.get(mode).get(dependency);
    return executor.submit(
        () -> {
          runningSubTasks.incrementAndGet();
          long t0 = System.nanoTime();
          try {
            T value = call.call();
            long nanos = System.nanoTime() - t0;
            timer.record(nanos, TimeUnit.NANOSECONDS);
            Thread t = Thread.currentThread();
            return new Outcome<>(
                value, TimeUnit.NANOSECONDS.toMillis(nanos), t.getName(), t.isVirtual());
          } finally {
            runningSubTasks.decrementAndGet();
          }
        });
  }

  /**
   * An answered request leaves nothing behind: the late or failed ones' siblings are interrupted.
   */
  private static void cancelAll(Map<Dependency, Future<Outcome<?>>> futures) {
    futures.values().forEach(f -> f.cancel(true));
  }

  private static List<Long> recommendations(long id, long latencyMs) throws InterruptedException {
    Thread.sleep(latencyMs); // the recommendation cache's round trip
    return recommendationsOf(id);
  }

  private static List<CompetitorPrice> competitorPrices(long id, long latencyMs)
      throws InterruptedException {
    Thread.sleep(latencyMs); // the pricing service's round trip
    return competitorPricesOf(id);
  }

  private static List<Long> recommendationsOf(long id) {
    List<Long> ids = new ArrayList<>(3);
    for (int i = 1; i <= 3; i++) {
      ids.add(Math.floorMod(id * 31 + i * 977, 10_000L) + 1);
    }
    return ids;
  }

  private static List<CompetitorPrice> competitorPricesOf(long id) {
    List<CompetitorPrice> prices = new ArrayList<>(2);
    for (String seller : List.of("acme", "globex")) {
      long cents = 500 + Math.floorMod(id * 7919 + seller.hashCode(), 99_500);
      prices.add(
          new CompetitorPrice(
              seller, BigDecimal.valueOf(cents, 2).setScale(2, RoundingMode.UNNECESSARY)));
    }
    return prices;
  }

  @SuppressWarnings("unchecked")
  private static ProductView view(
      Mode mode, Clients clients, Map<Dependency, Outcome<?>> outcomes, long totalMs) {
    Map<String, Long> latency = new LinkedHashMap<>();
    Map<String, String> threads = new LinkedHashMap<>();
    boolean allVirtual = true;
    for (Map.Entry<Dependency, Outcome<?>> e : outcomes.entrySet()) {
      latency.put(e.getKey().id(), e.getValue().millis());
      threads.put(e.getKey().id(), e.getValue().thread());
      allVirtual &= e.getValue().virtual();
    }
    Product product = ((Optional<Product>) outcomes.get(Dependency.CATALOG).value()).orElseThrow();
    return new ProductView(
        mode.id(),
        clients.id(),
        product,
        (Stock) outcomes.get(Dependency.STOCK).value(),
        (List<Long>) outcomes.get(Dependency.RECOMMENDATIONS).value(),
        (List<CompetitorPrice>) outcomes.get(Dependency.PRICES).value(),
        latency,
        threads,
        allVirtual,
        totalMs);
  }
}
