package dev.loomlab.database;

import dev.loomlab.execution.ExecutionConfig;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.execution.WaitBudget.Queue;
import dev.loomlab.problem.ProblemException;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import io.vertx.core.http.ConnectionPoolTooBusyException;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.pgclient.PgException;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.microprofile.config.Config;
import org.jboss.logging.Logger;

/**
 * The reactive pool as the workloads use it: work on one pooled connection, waited for in a fair
 * bulkhead of as many permits as connections within the request's {@link WaitBudget}, every failure
 * turned into the problem a client of the other modes would see.
 */
@ApplicationScoped
public class ReactiveDatabase {

  private static final Logger LOG = Logger.getLogger(ReactiveDatabase.class);

  private final Pool pool;
  private final DbConfig db;
  private final int maxSize;
  private final Duration maxWait;
  private final Optional<Duration> readTimeout;
  private final ReactiveBulkhead bulkhead;

  ReactiveDatabase(
      Pool pool,
      Vertx vertx,
      ReactiveConfig reactive,
      DbConfig db,
      ExecutionConfig execution,
      Config config,
      MeterRegistry registry) {
    this.pool = pool;
    this.db = db;
    this.maxSize = ReactivePoolProducer.maxSize(reactive, config);
    this.maxWait = execution.maxWait();
    this.readTimeout = ReactivePoolProducer.readTimeout(config);
    this.bulkhead = new ReactiveBulkhead(vertx, maxSize, reactive.pool().maxWaiting());
    // Vert.x reports the pool's connections itself (sql_pool_active, _idle {pool_name=
    // "loomlab-reactive"}); the size, and the wait, which happens in the bulkhead, it cannot.
    Gauge.builder("loomlab.reactive.pool.size", () -> maxSize)
        .description("Connections the reactive pool may open")
        .register(registry);
    // The wait itself is the request's: loomlab.execution.wait{queue="bulkhead"}.
    Gauge.builder("loomlab.reactive.pool.waiting", bulkhead, ReactiveBulkhead::waiting)
        .description("Reactive callers waiting for a connection")
        .register(registry);
  }

  /**
   * Runs {@code work} on a pooled connection, handed back when {@code work}'s Uni ends. A request
   * cancelled meanwhile (its client gone) stops waiting, not the work: the connection and its
   * permit come back together when the statement ends, so neither leaks and the pool never queues.
   */
  public <T> Uni<T> withConnection(WaitBudget budget, Function<SqlConnection, Uni<T>> work) {
    return answered(budget, withPermit(budget, () -> onConnection(budget, false, work)));
  }

  /**
   * Runs {@code work} in a transaction on a pooled connection, waited for as in {@link
   * #withConnection}: committed when {@code work}'s Uni succeeds, rolled back when it fails. A
   * transaction that lost to a concurrent one fails with {@link TransactionConflict}, which the
   * caller may retry; every other failure is the problem a client would see.
   */
  public <T> Uni<T> inTransaction(WaitBudget budget, Function<SqlConnection, Uni<T>> work) {
    return answered(budget, withPermit(budget, () -> onConnection(budget, true, work)));
  }

  /**
   * The JDBC driver's read bound ({@code socketTimeout}) on a reactive call: no answer within what
   * is left of the budget (the wait for a permit and a connection) plus the socket timeout is a
   * 503, as a JDBC read that times out is. The reactive client cannot bound a read alone without
   * closing its idle connections too (ReactivePoolProducer.wireBounds), so the call is bounded
   * instead; its work goes on and gives its connection and permit back when it ends, as a call
   * whose client left does.
   */
  private <T> Uni<T> answered(WaitBudget budget, Uni<T> call) {
    if (readTimeout.isEmpty()) {
      return call;
    }
    Duration read = readTimeout.get();
    return Uni.createFrom()
        .deferred(
            () ->
                call.ifNoItem()
                    .after(budget.remaining().plus(read))
                    .failWith(
                        () ->
                            ProblemException.databaseUnavailable(
                                "the database did not answer within "
                                    + read.toSeconds()
                                    + " s (the JDBC socketTimeout); retry later",
                                db.downRetryAfterSeconds())));
  }

  /** A permit within what is left of {@code budget}, the wait booked on it as the bulkhead's. */
  private <T> Uni<T> withPermit(WaitBudget budget, Supplier<Uni<? extends T>> work) {
    return Uni.createFrom()
        .deferred(
            () -> {
              long start = System.nanoTime();
              AtomicBoolean started = new AtomicBoolean();
              Supplier<Uni<? extends T>> booked =
                  () -> {
                    started.set(true);
                    budget.waited(Queue.BULKHEAD, System.nanoTime() - start);
                    return work.get();
                  };
              return bulkhead
                  .withPermit(budget.remaining(), booked)
                  .onFailure(f -> !started.get() && isRefusal(f)) // the bulkhead's, not the work's
                  .transform(f -> budget.exhausted(Queue.BULKHEAD, System.nanoTime() - start));
            });
  }

  private static boolean isRefusal(Throwable failure) {
    return failure instanceof TimeoutException || failure instanceof RejectedExecutionException;
  }

  /**
   * The work on a connection of the pool. With a permit in hand the pool waits only while a
   * connection opens; should that outlast its connection timeout (the safety net, set to the
   * budget), the wait is the bulkhead queue's too, booked on {@code budget}.
   */
  private <T> Uni<T> onConnection(
      WaitBudget budget, boolean transaction, Function<SqlConnection, Uni<T>> work) {
    AtomicBoolean acquired = new AtomicBoolean();
    long start = System.nanoTime();
    Function<SqlConnection, Uni<T>> onIt =
        connection -> {
          acquired.set(true);
          return Uni.createFrom().deferred(() -> work.apply(connection));
        };
    return (transaction ? pool.withTransaction(onIt) : pool.withConnection(onIt))
        .onFailure()
        .transform(
            failure ->
                acquired.get()
                    ? queryProblem(failure, transaction)
                    : acquisitionProblem(failure, budget, System.nanoTime() - start));
  }

  /** Permits of the bulkhead free now: 0 while every connection is taken. */
  public int available() {
    return bulkhead.available();
  }

  public int maxSize() {
    return maxSize;
  }

  public Duration maxWait() {
    return maxWait;
  }

  private Throwable acquisitionProblem(Throwable failure, WaitBudget budget, long waitedNanos) {
    if (failure instanceof ProblemException) {
      return failure;
    }
    if (isPoolBusy(failure)) {
      return budget.exhausted(Queue.BULKHEAD, waitedNanos);
    }
    return unreachable(failure);
  }

  private Throwable queryProblem(Throwable failure, boolean transaction) {
    if (failure instanceof ProblemException) {
      return failure;
    }
    if (transaction
        && failure instanceof PgException pg
        && TransactionConflict.isConflict(pg.getSqlState())) {
      return new TransactionConflict(pg.getSqlState(), failure);
    }
    if (failure instanceof PgException pg
        && DatabaseProblems.timedOut(pg.getSqlState(), db) instanceof ProblemException timedOut) {
      return timedOut;
    }
    if (failure instanceof PgException pg && !isConnectionState(pg.getSqlState())) {
      LOG.errorf(failure, "database error %s", pg.getSqlState());
      return ProblemException.databaseError(
          "the database refused the statement (SQLState "
              + pg.getSqlState()
              + "), logged by the service",
          pg.getSqlState());
    }
    return unreachable(failure);
  }

  private Throwable unreachable(Throwable failure) {
    LOG.debugf(failure, "reactive database call failed");
    return ProblemException.databaseUnavailable(
        "the database is unreachable; retry later", db.downRetryAfterSeconds());
  }

  private static boolean isPoolBusy(Throwable failure) {
    if (failure instanceof ConnectionPoolTooBusyException) {
      return true;
    }
    // With the bulkhead in front, Vert.x' pool has a waiter only while a connection is opened or
    // closed; past loomlab.execution.max-wait it fails it with a bare "Timeout". A database
    // that does not accept connections fails otherwise.
    return failure instanceof TimeoutException || "Timeout".equals(failure.getMessage());
  }

  private static boolean isConnectionState(String sqlState) {
    // 08: connection exception; 57P01-57P03: the server is shutting down or starting up.
    return sqlState != null && (sqlState.startsWith("08") || sqlState.startsWith("57P"));
  }
}
