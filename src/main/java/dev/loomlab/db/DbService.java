package dev.loomlab.db;

import dev.loomlab.execution.Clients;
import dev.loomlab.execution.Mode;
import dev.loomlab.observability.WorkloadMetrics;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.ProblemException;
import dev.loomlab.reactive.ReactiveDatabase;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * A query that holds one pooled connection for a requested time (seed B): with more requests than
 * connections, the pool, not the threads, sets the pace.
 */
@ApplicationScoped
public class DbService {

  private static final String SLOW = "SELECT pg_sleep(? / 1000.0)";
  private static final String SLOW_REACTIVE = "SELECT pg_sleep($1::bigint / 1000.0)";

  private final AgroalDataSource dataSource;
  private final ReactiveDatabase reactive;
  private final DbConfig config;
  private final Semaphore bulkhead;
  private final Map<Mode, Timer> timers;
  private final Timer waits;
  private final Counter rejected;

  DbService(
      AgroalDataSource dataSource,
      ReactiveDatabase reactive,
      DbConfig config,
      WorkloadMetrics metrics,
      @ConfigProperty(name = "quarkus.datasource.jdbc.max-size", defaultValue = "20")
          int poolSize) {
    this.dataSource = dataSource;
    this.reactive = reactive;
    this.config = config;
    int permits = config.bulkhead().permits().orElse(poolSize);
    this.bulkhead = config.bulkhead().enabled() ? new Semaphore(permits, true) : null;
    this.timers = metrics.timers("db");
    this.waits =
        Timer.builder("loomlab.db.wait")
            .description("Time a pool-bound query waited for a bulkhead permit and a connection")
            .register(metrics.registry());
    this.rejected =
        Counter.builder("loomlab.db.rejected")
            .description("Pool-bound queries answered 503 (no permit or no connection in time)")
            .register(metrics.registry());
    if (bulkhead != null) {
      Gauge.builder("loomlab.db.bulkhead.waiting", bulkhead, Semaphore::getQueueLength)
          .description("Requests waiting for a database permit")
          .register(metrics.registry());
      Gauge.builder("loomlab.db.bulkhead.available", bulkhead, Semaphore::availablePermits)
          .description("Free database permits")
          .register(metrics.registry());
    }
  }

  /**
   * The query on the request's thread, through JDBC, or through the reactive client awaited there
   * ({@code clients=reactive}, the virtual mode's variant): the same bulkhead bound, the same 503.
   */
  public DbResult slowQuery(Mode mode, long ms, Clients clients) {
    Bounds.check("ms", ms, 0, config.maxMs());
    if (clients == Clients.REACTIVE) {
      long start = System.nanoTime();
      long acquired = reactiveQuery(ms, start).await().indefinitely();
      return result(mode, Clients.REACTIVE, start, acquired, ms);
    }
    return blockingQuery(mode, ms);
  }

  private DbResult blockingQuery(Mode mode, long ms) {
    long start = System.nanoTime();
    boolean permitted = false;
    try {
      if (bulkhead != null) {
        permitted =
            bulkhead.tryAcquire(config.bulkhead().maxWait().toNanos(), TimeUnit.NANOSECONDS);
        if (!permitted) {
          rejected.increment();
          throw ProblemException.unavailable(
              "no database permit free within loomlab.db.bulkhead.max-wait="
                  + config.bulkhead().maxWait().toMillis()
                  + " ms; retry later",
              config.retryAfterSeconds());
        }
      }
      try (Connection c = dataSource.getConnection()) {
        long acquired = System.nanoTime();
        waits.record(acquired - start, TimeUnit.NANOSECONDS);
        try (PreparedStatement ps = c.prepareStatement(SLOW)) {
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
            bulkhead != null);
      } catch (SQLException e) {
        RuntimeException problem = DatabaseProblems.of(e, config);
        if (problem instanceof ProblemException) {
          rejected.increment();
        }
        throw problem;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for the database", e);
    } finally {
      if (permitted) {
        bulkhead.release();
      }
    }
  }

  /**
   * The reactive form: the same query through the reactive pool, which has as many connections,
   * behind a bulkhead that blocks no thread: FIFO, bounded by {@code
   * loomlab.reactive.pool.max-wait} (by default the other modes' {@code
   * loomlab.db.bulkhead.max-wait}), then 503.
   */
  public Uni<DbResult> slowQueryOnEventLoop(long ms) {
    Bounds.check("ms", ms, 0, config.maxMs());
    long start = System.nanoTime();
    return reactiveQuery(ms, start)
        .map(acquired -> result(Mode.REACTIVE, Clients.REACTIVE, start, acquired, ms));
  }

  /** The query through the reactive pool; its item is when the connection was acquired. */
  private Uni<Long> reactiveQuery(long ms, long start) {
    return reactive
        .withConnection(
            connection -> {
              long acquired = System.nanoTime();
              waits.record(acquired - start, TimeUnit.NANOSECONDS);
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
