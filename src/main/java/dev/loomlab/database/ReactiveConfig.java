package dev.loomlab.database;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.OptionalInt;

/**
 * Knobs of the reactive mode's clients ({@code loomlab.reactive.*}). The database address and
 * credentials are the JDBC datasource's ({@code quarkus.datasource.*}); the size defaults to the
 * JDBC pool's and a connection is waited for within the request's budget ({@code
 * loomlab.execution.max-wait}), so the three modes meet the same limits.
 */
@ConfigMapping(prefix = "loomlab.reactive")
public interface ReactiveConfig {

  /** {@code loomlab.reactive.pool.*}: the Vert.x PostgreSQL pool. */
  Pool pool();

  /** {@code loomlab.reactive.web-client.*}: the Vert.x web client of the stock dependency. */
  WebClient webClient();

  interface Pool {
    /**
     * {@code loomlab.reactive.pool.max-size}: connections of the reactive pool (default: {@code
     * quarkus.datasource.jdbc.max-size}, the JDBC pool's size).
     */
    OptionalInt maxSize();

    /**
     * {@code loomlab.reactive.pool.max-waiting}: queries that may wait for a connection at once;
     * past it, 503 at once (-1: bounded by the requests' wait budget alone, {@code
     * loomlab.execution.max-wait}, as the other modes' fair semaphore is).
     */
    @WithDefault("-1")
    int maxWaiting();

    /**
     * {@code loomlab.reactive.pool.health-timeout}: how long the readiness check's own connection
     * and query may take; under the probes' 3 s timeout, so the probe hears DOWN, not nothing.
     */
    @WithDefault("2s")
    Duration healthTimeout();
  }

  interface WebClient {
    /**
     * {@code loomlab.reactive.web-client.max-connections}: HTTP/1.1 connections to the stock
     * service. The JDK client of the other modes has no limit; this one is large enough that it
     * never binds before the event loop does (Vert.x's own default, 5, would).
     */
    @WithDefault("1000")
    int maxConnections();
  }
}
