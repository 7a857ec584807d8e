package dev.loomlab.db;

import dev.loomlab.database.ConnectionPermits;
import dev.loomlab.database.DatabaseProblems;
import dev.loomlab.database.DbConfig;
import dev.loomlab.database.ReactiveDatabase;
import dev.loomlab.execution.Clients;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.observability.WorkloadMetrics;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.ProblemException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.TimeoutException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A query that holds one pooled connection for a requested time (seed B): with more requests than
 * connections, the pool, not the threads, sets the pace.
 */
@ApplicationScoped
public class DbService {

  private static final String SLOW = "SELECT pg_sleep(? / 1000.0)";
  private static final String SLOW_REACTIVE = "SELECT pg_sleep($1::bigint / 1000.0)";

  private final ConnectionPermits permits;
  private final ReactiveDatabase reactive;
  private final WaitBudgets budgets;
  private final DbConfig config;
  private final Map<Mode, Timer> timers;
  private final Counter rejected;

  DbService(
      ConnectionPermits permits,
      ReactiveDatabase reactive,
      WaitBudgets budgets,
      DbConfig config,
      WorkloadMetrics metrics) {
    this.permits = permits;
    this.reactive = reactive;
    this.budgets = budgets;
    this.config = config;
    this.timers = metrics.timers("db");
    this.rejected =
        Counter.builder("loomlab.db.rejected")
            .description("Pool-bound queries answered 503 (no permit or no connection in time)")
            .register(metrics.registry());
  }

  /**
   * The query on the request's thread, through JDBC, or through the reactive client awaited there
   * ({@code clients=reactive}, the virtual mode's variant): the same bulkhead bound, the same 503.
   */
  public DbResult slowQuery(Mode mode, long ms, Clients clients) {
    Bounds.check("ms", ms, 0, config.maxMs());
    WaitBudget budget = budgets.current();
    if (clients == Clients.REACTIVE) {
      long start = System.nanoTime();
      long acquired = awaited(reactiveQuery(budget, ms, start));
      return result(mode, Clients.REACTIVE, start, acquired, ms);
    }
    return blockingQuery(mode, budget, ms);
  }

  /**
   * The reactive query awaited on the request's thread, never longer than a connection's wait and
   * the statement timeout: the database answers before that, unless it stopped answering at all.
   */
  private long awaited(Uni<Long> query) {
    try {
      return query.await().atMost(reactive.maxWait().plus(config.statementTimeout()));
    } catch (TimeoutException e) {
      throw ProblemException.databaseUnavailable(
          "the database did not answer within loomlab.execution.max-wait and"
              + " loomlab.db.statement-timeout; retry later",
          config.downRetryAfterSeconds());
    }
  }

  private DbResult blockingQuery(Mode mode, WaitBudget budget, long ms) {
    long start = System.nanoTime();
    try (ConnectionPermits.Lease lease = permits.lease(budget)) {
      long acquired = System.nanoTime();
      try (PreparedStatement ps = lease.connection().prepareStatement(SLOW)) {
        ps.setLong(1, ms);
        ps.execute();
      }
      long end = System.nanoTime();
      timers.get(mode).record(end - start, TimeUnit.NANOSECONDS);
      Thread t = Thread.currentThread();
      return new DbResult(
          mode.id(),
          Clients.BLOCKING.id(),
          t.getName(),
          t.isVirtual(),
          ms,
          TimeUnit.NANOSECONDS.toMillis(acquired - start),
          TimeUnit.NANOSECONDS.toMillis(end - acquired),
          permits.bulkheadEnabled());
    } catch (ProblemException p) {
      countRefusal(p);
      throw p;
    } catch (SQLException e) {
      RuntimeException problem = DatabaseProblems.of(e, config);
      if (problem instanceof ProblemException p) {
        countRefusal(p);
      }
      throw problem;
    }
  }

  /**
   * The reactive form: the same query through the reactive pool, which has as many connections,
   * behind a bulkhead that blocks no thread: FIFO, waited for within the request's budget ({@code
   * loomlab.execution.max-wait}), then 503.
   */
  public Uni<DbResult> slowQueryOnEventLoop(long ms) {
    Bounds.check("ms", ms, 0, config.maxMs());
    WaitBudget budget = budgets.current();
    long start = System.nanoTime();
    return reactiveQuery(budget, ms, start)
        .map(acquired -> result(Mode.REACTIVE, Clients.REACTIVE, start, acquired, ms));
  }

  /** The query through the reactive pool; its item is when the connection was acquired. */
  private Uni<Long> reactiveQuery(WaitBudget budget, long ms, long start) {
    return reactive
        .withConnection(
            budget,
            connection -> {
              long acquired = System.nanoTime();
              return connection
                  .preparedQuery(SLOW_REACTIVE)
                  .execute(Tuple.of(ms))
                  .map(rows -> acquired);
            })
        .onFailure(ProblemException.class)
        .invoke(this::countRefusal);
  }

  /** The answer, built on the thread that answers: the event loop, or the awaiting thread. */
  private DbResult result(Mode mode, Clients clients, long start, long acquired, long ms) {
    long end = System.nanoTime();
    timers.get(mode).record(end - start, TimeUnit.NANOSECONDS);
    Thread t = Thread.currentThread();
    return new DbResult(
        mode.id(),
        clients.id(),
        t.getName(),
        t.isVirtual(),
        ms,
        TimeUnit.NANOSECONDS.toMillis(acquired - start),
        TimeUnit.NANOSECONDS.toMillis(end - acquired),
        true);
  }

  private void countRefusal(Throwable problem) {
    if (((ProblemException) problem).status() == 503) {
      rejected.increment();
    }
  }
}
