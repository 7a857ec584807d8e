package dev.loomlab.database;

import dev.loomlab.execution.ExecutionConfig;
import io.quarkus.runtime.configuration.DurationConverter;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.sqlclient.PoolOptions;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Disposes;
import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

/**
 * The reactive mode's PostgreSQL pool, built on Quarkus' managed Vert.x from the JDBC datasource's
 * address and credentials (so Dev Services, {@code ./lab} and Kubernetes need no second setting),
 * and closed on shutdown.
 */
@ApplicationScoped
class ReactivePoolProducer {

  private static final Logger LOG = Logger.getLogger(ReactivePoolProducer.class);
  private static final String JDBC = "jdbc:";
  static final String IDLE_REMOVAL = "quarkus.datasource.jdbc.idle-removal-interval";
  // Agroal's default in Quarkus (quarkus.datasource.jdbc.idle-removal-interval).
  static final Duration DEFAULT_IDLE_REMOVAL = Duration.ofMinutes(5);
  private static final String JDBC_PROPERTIES =
      "quarkus.datasource.jdbc.additional-jdbc-properties.";
  static final String POOL_NAME = "loomlab-reactive";

  @Produces
  @Singleton
  Pool pool(
      Vertx vertx, Config config, ReactiveConfig reactive, ExecutionConfig execution, DbConfig db) {
    PgConnectOptions connect = connectOptions(config, db);
    PoolOptions options =
        new PoolOptions()
            .setName(POOL_NAME)
            .setMaxSize(maxSize(reactive, config))
            // The bulkhead in front (ReactiveDatabase) bounds the waiters and their wait; this pool
            // sees a waiter only while a connection opens, and times it out as a safety net.
            .setMaxWaitQueueSize(-1)
            .setConnectionTimeout((int) execution.maxWait().toMillis())
            .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS);
    LOG.infof(
        "reactive pool: %d connections to %s:%d/%s, wait at most %d ms, connect at most %d ms,"
            + " idle at most %d s, keep-alive %s, a call answered within the wait and %s",
        options.getMaxSize(),
        connect.getHost(),
        connect.getPort(),
        connect.getDatabase(),
        options.getConnectionTimeout(),
        connect.getConnectTimeout(),
        connect.getIdleTimeout(),
        connect.isTcpKeepAlive(),
        readTimeout(config).map(Duration::toString).orElse("no read bound"));
    return Pool.pool(vertx, connect, options);
  }

  /**
   * Where and as whom the service's reactive connections connect: the JDBC datasource's URL and
   * credentials, with {@link SessionTimeouts}' settings. The readiness check's own connection too.
   */
  static PgConnectOptions connectOptions(Config config, DbConfig db) {
    PgConnectOptions connect = address(config);
    // The same session timeouts as every JDBC connection (SessionTimeouts).
    SessionTimeouts.settings(db).forEach(connect::addProperty);
    wireBounds(config, connect);
    // One prepared statement per SQL text and connection, as the JDBC driver caches them.
    connect.setCachePreparedStatements(true);
    // Quarkus' Micrometer binder names the client's metrics "<type>|<name>": sql_* {clientName}.
    connect.setMetricsName("sql|" + POOL_NAME);
    return connect;
  }

  /** The JDBC datasource's address, TLS and credentials, as the reactive client's. */
  static PgConnectOptions address(Config config) {
    String url =
        config
            .getOptionalValue("quarkus.datasource.jdbc.url", String.class)
            .orElseThrow(
                () ->
                    new IllegalStateException(
                        "quarkus.datasource.jdbc.url is not set: the reactive pool connects where"
                            + " the JDBC datasource does"));
    PgConnectOptions connect =
        PgUri.options(url.startsWith(JDBC) ? url.substring(JDBC.length()) : url);
    config
        .getOptionalValue("quarkus.datasource.username", String.class)
        .ifPresent(connect::setUser);
    config
        .getOptionalValue("quarkus.datasource.password", String.class)
        .ifPresent(connect::setPassword);
    return connect;
  }

  /**
   * The JDBC driver's bounds on the wire, said once in application.properties, on the reactive
   * client too: a connection attempt gives up after {@code connectTimeout} seconds, and TCP
   * keep-alive is on. A connection that is merely idle is closed after the JDBC pool's own idle
   * time ({@code quarkus.datasource.jdbc.idle-removal-interval}, 5 min by default), so the two
   * pools keep their connections alike: a minute without queries (another column's turn in a
   * bench's rounds) does not make the reactive mode alone connect again. The read bound, {@code
   * socketTimeout}, cannot be the connection's idle time without closing idle connections with it;
   * ReactiveDatabase bounds each call by it instead ({@link #readTimeout}).
   */
  static void wireBounds(Config config, PgConnectOptions connect) {
    config
        .getOptionalValue(JDBC_PROPERTIES + "connectTimeout", Integer.class)
        .ifPresent(s -> connect.setConnectTimeout((int) TimeUnit.SECONDS.toMillis(s)));
    Duration idle =
        config
            .getOptionalValue(IDLE_REMOVAL, String.class)
            .map(DurationConverter::parseDuration)
            .orElse(DEFAULT_IDLE_REMOVAL);
    connect.setIdleTimeout((int) idle.toSeconds()).setIdleTimeoutUnit(TimeUnit.SECONDS);
    config
        .getOptionalValue(JDBC_PROPERTIES + "tcpKeepAlive", Boolean.class)
        .ifPresent(connect::setTcpKeepAlive);
  }

  /** The JDBC driver's read bound ({@code socketTimeout}, seconds; 0 or none: no bound). */
  static Optional<Duration> readTimeout(Config config) {
    return config
        .getOptionalValue(JDBC_PROPERTIES + "socketTimeout", Integer.class)
        .filter(s -> s > 0)
        .map(Duration::ofSeconds);
  }

  /** The pool's size: its own knob, else the JDBC pool's. */
  static int maxSize(ReactiveConfig reactive, Config config) {
    return reactive
        .pool()
        .maxSize()
        .orElseGet(
            () ->
                config
                    .getOptionalValue("quarkus.datasource.jdbc.max-size", Integer.class)
                    .orElse(20));
  }

  void close(@Disposes Pool pool) {
    pool.closeAndAwait();
  }
}
