package dev.loomlab.reactive;

import dev.loomlab.db.DbConfig;
import dev.loomlab.problem.ProblemException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.pgclient.PgException;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

/**
 * The reactive pool as the workloads use it: work on one pooled connection, the wait for it
 * bounded, every failure turned into the problem a client of the other modes would see.
 */
@ApplicationScoped
public class ReactiveDatabase {

  private static final Logger LOG = Logger.getLogger(ReactiveDatabase.class);

  private final Pool pool;
  private final DbConfig db;
  private final int maxSize;
  private final Duration maxWait;
  private final Duration healthTimeout;

  ReactiveDatabase(
      Pool pool, ReactiveConfig reactive, DbConfig db, Config config, MeterRegistry registry) {
    this.pool = pool;
    this.db = db;
    this.maxSize = ReactivePoolProducer.maxSize(reactive, config);
    this.maxWait = ReactivePoolProducer.maxWait(reactive, db, config);
    this.healthTimeout = reactive.pool().healthTimeout();
    // Vert.x reports the pool's state itself (sql_pool_active, _idle, _queue_size, _queue_delay,
    // _rejected {pool_name="loomlab-reactive"}); its configured size it does not.
    Gauge.builder("loomlab.reactive.pool.size", () -> maxSize)
        .description("Connections the reactive pool may open")
        .register(registry);
  }

  /**
   * Runs {@code work} on a pooled connection, handed back when {@code work}'s Uni ends. The pool
   * owns the connection's life, so a request cancelled meanwhile (its client gone) cannot leak it.
   */
  public <T> Uni<T> withConnection(Function<SqlConnection, Uni<T>> work) {
    AtomicBoolean acquired = new AtomicBoolean();
    return pool.withConnection(
            connection -> {
              acquired.set(true);
              return Uni.createFrom()
                  .deferred(() -> work.apply(connection))
                  .onFailure()
                  .transform(this::queryProblem);
            })
        .onFailure(failure -> !acquired.get())
        .transform(this::acquisitionProblem);
  }

  /** The readiness probe: one round trip within {@code loomlab.reactive.pool.health-timeout}. */
  Uni<Void> ping() {
    return pool.query("SELECT 1")
        .execute()
        .ifNoItem()
        .after(healthTimeout)
        .failWith(
            () -> new TimeoutException("no answer within " + healthTimeout.toMillis() + " ms"))
        .replaceWithVoid();
  }

  public int maxSize() {
    return maxSize;
  }

  public Duration maxWait() {
    return maxWait;
  }

  private Throwable acquisitionProblem(Throwable failure) {
    if (failure instanceof ProblemException) {
      return failure;
    }
    if (isPoolBusy(failure)) {
      return ProblemException.unavailable(
          "no reactive pool connection free within " + maxWait.toMillis() + " ms; retry later",
          db.retryAfterSeconds());
    }
    return unreachable(failure);
  }

  private Throwable queryProblem(Throwable failure) {
    if (failure instanceof ProblemException) {
      return failure;
    }
    if (failure instanceof PgException pg && !isConnectionState(pg.getSqlState())) {
      LOG.errorf(failure, "database error %s", pg.getSqlState());
      return ProblemException.databaseError(
          "the database refused the statement (SQLState "
              + pg.getSqlState()
              + "), logged by the service");
    }
    return unreachable(failure);
  }

  private Throwable unreachable(Throwable failure) {
    LOG.debugf(failure, "reactive database call failed");
    return ProblemException.databaseUnavailable(
        "the database is unreachable (" + failure.getMessage() + "); retry later",
        db.downRetryAfterSeconds());
  }

  private static boolean isPoolBusy(Throwable failure) {
    if (failure instanceof ConnectionPoolTooBusyException) {
      return true;
    }
    // Vert.x' pool fails a waiter with a bare "Timeout" once loomlab.reactive.pool.max-wait has
    // passed; a database that does not accept connections fails otherwise.
    return failure instanceof TimeoutException || "Timeout".equals(failure.getMessage());
  }

  private static boolean isConnectionState(String sqlState) {
    // 08: connection exception; 57P01-57P03: the server is shutting down or starting up.
    return sqlState != null && (sqlState.startsWith("08") || sqlState.startsWith("57P"));
  }
}
