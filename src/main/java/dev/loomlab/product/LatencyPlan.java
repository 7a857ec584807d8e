package dev.loomlab.product;

import java.util.EnumMap;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/** The simulated latency of each dependency for one request, drawn from the configured ranges. */
record LatencyPlan(Map<Dependency, Long> millis) {

  static LatencyPlan draw(ProductConfig config, long productId) {
    // With a seed, a product id always draws the same four latencies, whatever the interleaving.
    RandomGenerator random =
        config
            .randomSeed()
            .<RandomGenerator>map(seed -> new SplittableRandom(seed * 31 + productId))
            .orElseGet(ThreadLocalRandom::current);
    Map<Dependency, Long> millis = new EnumMap<>(Dependency.class);
    millis.put(Dependency.CATALOG, uniform(random, config.catalog()));
    millis.put(Dependency.STOCK, uniform(random, config.stock()));
    millis.put(Dependency.RECOMMENDATIONS, uniform(random, config.recommendations()));
    millis.put(Dependency.PRICES, uniform(random, config.prices()));
    return new LatencyPlan(millis);
  }

  long of(Dependency dependency) {
    return millis.get(dependency);
  }

  private static long uniform(RandomGenerator random, ProductConfig.Latency range) {
    return range.maxMs() <= range.minMs()
        ? range.minMs()
        : random.nextLong(range.minMs(), range.maxMs() + 1);
  }
}
