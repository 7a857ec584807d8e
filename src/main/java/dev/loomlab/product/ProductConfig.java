package dev.loomlab.product;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;

/** Knobs of the product lookup ({@code loomlab.product.*}); latencies as in seed C. */
@ConfigMapping(prefix = "loomlab.product")
public interface ProductConfig {

  /** {@code loomlab.product.catalog.*}: the product row (a real SELECT) plus latency. */
  Catalog catalog();

  /** {@code loomlab.product.stock.*}: a real HTTP call to the stock service. */
  Stock stock();

  /** {@code loomlab.product.recommendations.*}: the recommendation cache. */
  Recommendations recommendations();

  /** {@code loomlab.product.prices.*}: competitor prices. */
  Prices prices();

  /** {@code loomlab.product.timeout}: longest wait for all four; then 504 naming the laggards. */
  @WithDefault("3s")
  Duration timeout();

  /**
   * {@code loomlab.product.random-seed}: when set, each product id always gets the same four
   * latencies, so runs can be repeated exactly.
   */
  Optional<Long> randomSeed();

  /** A uniform latency range in milliseconds. */
  interface Latency {
    /** Lower bound (ms). */
    long minMs();

    /** Upper bound (ms). */
    long maxMs();
  }

  interface Catalog extends Latency {
    @Override
    @WithDefault("100")
    long minMs();

    @Override
    @WithDefault("300")
    long maxMs();

    /**
     * {@code loomlab.product.catalog.latency-in}: {@code service} spends the latency after the
     * query, the connection already back in the pool; {@code database} spends it inside the query
     * ({@code pg_sleep}), holding a connection, so the pool becomes the bottleneck.
     */
    @WithDefault("service")
    LatencyIn latencyIn();
  }

  interface Stock extends Latency {
    @Override
    @WithDefault("150")
    long minMs();

    @Override
    @WithDefault("400")
    long maxMs();

    /**
     * {@code loomlab.product.stock.url}: base URL of the stock service; by default loomlab's own
     * non-blocking stub ({@code /stub/stock}), so a separate process or pod can play it instead.
     */
    @WithDefault("http://127.0.0.1:${quarkus.http.port}/stub/stock")
    String url();

    /** {@code loomlab.product.stock.connect-timeout}: TCP connect timeout of the client. */
    @WithDefault("2s")
    Duration connectTimeout();
  }

  interface Recommendations extends Latency {
    @Override
    @WithDefault("50")
    long minMs();

    @Override
    @WithDefault("200")
    long maxMs();
  }

  interface Prices extends Latency {
    @Override
    @WithDefault("100")
    long minMs();

    @Override
    @WithDefault("250")
    long maxMs();
  }

  enum LatencyIn {
    service,
    database
  }
}
