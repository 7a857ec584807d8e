package dev.loomlab.database;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * Knobs of the pool-bound query ({@code loomlab.db.*}). The pool itself is Agroal's: {@code
 * quarkus.datasource.jdbc.max-size} and {@code acquisition-timeout} (the latter governs start-up;
 * see {@link #acquisitionTimeout()}).
 */
@ConfigMapping(prefix = "loomlab.db")
public interface DbConfig {

  /**
   * {@code loomlab.db.statement-timeout}: the longest any statement of the service may run, JDBC
   * and reactive alike (PostgreSQL's {@code statement_timeout}); past it the client gets 503. Above
   * {@link #maxMs()}, the longest sleep a request may ask for.
   */
  @WithDefault("30s")
  Duration statementTimeout();

  /**
   * {@code loomlab.db.lock-timeout}: the longest a statement waits for a row another transaction
   * holds (PostgreSQL's {@code lock_timeout}); past it the writer answers 503 {@code
   * write-conflict} instead of waiting with its permit and connection held.
   */
  @WithDefault("2s")
  Duration lockTimeout();

  /**
   * {@code loomlab.db.idle-in-transaction-timeout}: the longest a connection of the service may sit
   * in an open transaction between statements (PostgreSQL's {@code
   * idle_in_transaction_session_timeout}); past it the server ends the session and its locks are
   * released, so a request stalled mid-transaction (a paused JVM, a lost thread) cannot hold rows
   * that others wait for. Its statements stay bounded by {@link #statementTimeout()}.
   */
  @WithDefault("30s")
  Duration idleInTransactionTimeout();

  /** {@code loomlab.db.max-ms}: the longest {@code pg_sleep} a request may ask for. */
  @WithDefault("10000")
  long maxMs();

  /**
   * {@code loomlab.db.acquisition-timeout}: the pool's acquisition timeout once the service has
   * started, i.e. the longest a request waits for a connection before its 503 (unset: Agroal's
   * {@code quarkus.datasource.jdbc.acquisition-timeout} throughout). Start-up (Flyway's migration,
   * where it runs at start) keeps Agroal's own, longer timeout: on a busy machine the first
   * physical connections take longer than an overload bound should be.
   */
  Optional<Duration> acquisitionTimeout();

  /**
   * {@code loomlab.db.schema-version}: the schema this build needs, the version of its last Flyway
   * migration ({@code db/migration}; a test holds the two equal). Readiness stays DOWN while the
   * database's applied schema is older: the launchers run the migration as a step of its own before
   * the service starts with Flyway inactive ({@code QUARKUS_FLYWAY_ACTIVE=false}), and a service
   * started before it waits, unready, instead of failing its requests.
   */
  @WithDefault("5")
  String schemaVersion();

  /** {@code loomlab.db.bulkhead.*}: a fair limit on concurrent database work. */
  Bulkhead bulkhead();

  /** {@code loomlab.db.retry-after}: the Retry-After of a 503 for pool exhaustion. */
  @WithDefault("1")
  int retryAfterSeconds();

  /** {@code loomlab.db.down-retry-after}: the Retry-After of a 503 while the database is down. */
  @WithDefault("5")
  int downRetryAfterSeconds();

  interface Bulkhead {
    /**
     * {@code loomlab.db.bulkhead.enabled}: queue database work in a fair semaphore in front of the
     * pool ({@link ConnectionPermits}). Both threaded modes pass through it, so the comparison
     * stays fair; it matters for virtual threads, which have no thread pool to bound them. Off,
     * requests queue on Agroal's pool, bounded by its acquisition timeout.
     */
    @WithDefault("true")
    boolean enabled();

    /**
     * {@code loomlab.db.bulkhead.permits}: concurrent database calls (default: the pool size). A
     * permit is waited for within the request's budget, {@code loomlab.execution.max-wait}.
     */
    OptionalInt permits();
  }
}
