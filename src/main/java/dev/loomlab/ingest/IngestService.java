package dev.loomlab.ingest;

import dev.loomlab.database.ConnectionPermits;
import dev.loomlab.database.DatabaseProblems;
import dev.loomlab.database.DbConfig;
import dev.loomlab.execution.FanOutExecutors;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.ProblemException;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;

/**
 * The ingest engine (seed D), one for every domain: upserts a chunk into the domain's parent and
 * three child tables sequentially in one transaction, in parallel (parent first, then the children
 * at once on an executor of the request's model), or through COPY (the anchor). Transactions that
 * lose to a concurrent writer are retried; metrics carry the domain.
 */
@ApplicationScoped
public class IngestService {

  private final ConnectionPermits permits;
  private final WaitBudgets budgets;
  private final ChunkWriter writer;
  private final IngestReader reader;
  private final FanOutExecutors executors;
  private final DbConfig dbConfig;
  private final ConflictRetries retries;
  private final IngestMeters meters;
  private final ChunkChecks checks;

  IngestService(
      ConnectionPermits permits,
      WaitBudgets budgets,
      ChunkWriter writer,
      IngestReader reader,
      FanOutExecutors executors,
      DbConfig dbConfig,
      ConflictRetries retries,
      IngestMeters meters,
      ChunkChecks checks) {
    this.permits = permits;
    this.budgets = budgets;
    this.writer = writer;
    this.reader = reader;
    this.executors = executors;
    this.dbConfig = dbConfig;
    this.retries = retries;
    this.meters = meters;
    this.checks = checks;
  }

  /**
   * Writes a chunk after {@link ChunkChecks} found nothing wrong with it.
   *
   * @throws ProblemException {@code invalid-input} before anything is written
   */
  public <R extends IngestRecord> BatchResult batch(
      Domain<R, ?> domain, Mode mode, WriteStrategy writes, List<R> input) {
    checks.check(domain, input);
    Chunk<R> chunk = Chunk.of(domain, input);
    WaitBudget budget = budgets.current();
    try {
      switch (writes) {
        case sequential -> sequential(budget, chunk);
        case parallel -> parallel(budget, mode, chunk);
        case copy -> copy(budget, chunk);
      }
    } catch (SQLException e) {
      throw DatabaseProblems.of(e, dbConfig);
    }
    return chunk.landed(meters, mode, writes);
  }

  public <V> V find(Domain<?, V> domain, long id) {
    Bounds.check("id", id, 1, Long.MAX_VALUE);
    // Behind the bulkhead within the request's budget, as every other use of a connection.
    try (ConnectionPermits.Lease lease = permits.lease(budgets.current())) {
      return reader
          .find(lease.connection(), domain, id)
          .orElseThrow(() -> ProblemException.notFound("no " + domain.noun() + " with id " + id));
    } catch (SQLException e) {
      throw DatabaseProblems.of(e, dbConfig);
    }
  }

  /** All four tables in one transaction: all or nothing. */
  private <R extends IngestRecord> void sequential(WaitBudget budget, Chunk<R> chunk)
      throws SQLException {
    transaction(
        budget,
        chunk.domain(),
        Table.PARENT,
        (c, current) -> {
          for (Table t : Table.values()) {
            current[0] = t;
            long t0 = System.nanoTime();
            int n = writer.write(c, chunk.domain(), t, chunk.records());
            chunk.wrote(t, n, System.nanoTime() - t0);
          }
        });
  }

  /**
   * The parent committed first (the children's foreign keys need it), then the three children at
   * once, each on its own connection and transaction. A failed child leaves the parent and the
   * other children committed; replaying the chunk converges, every write being an upsert. The
   * children wait for their connections within what the parent left of the request's budget.
   */
  private <R extends IngestRecord> void parallel(WaitBudget budget, Mode mode, Chunk<R> chunk)
      throws SQLException {
    writeAlone(budget, Table.PARENT, chunk);
    Map<Table, Future<?>> futures = new EnumMap<>(Table.class);
    ProblemException refused = null;
    try {
      for (Table t : Table.CHILDREN) {
        futures.put(
            t,
            executors
                .executor(mode)
                .submit(
                    () -> {
                      try {
                        writeAlone(budget, t, chunk);
                      } catch (SQLException e) {
                        throw DatabaseProblems.of(e, dbConfig);
                      }
                      return null;
                    }));
      }
    } catch (RejectedExecutionException e) {
      // The parent is committed: the children already handed over run to their end and are
      // reported with the ones the pool refused, as a partial write (replay converges).
      refused =
          ProblemException.unavailable(
              "not written: the " + mode.id() + " fan-out pool was full", 1);
    }
    Map<Table, Throwable> failures = new EnumMap<>(Table.class);
    if (refused != null) {
      for (Table t : Table.CHILDREN) {
        if (!futures.containsKey(t)) {
          failures.put(t, refused);
        }
      }
    }
    for (Map.Entry<Table, Future<?>> e : futures.entrySet()) {
      try {
        e.getValue().get();
      } catch (ExecutionException ex) {
        failures.put(e.getKey(), ex.getCause());
      } catch (InterruptedException ex) {
        futures.values().forEach(f -> f.cancel(true));
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while writing children", ex);
      }
    }
    WriteProblems.throwIfChildrenFailed(chunk.domain(), failures, dbConfig);
  }

  private <R extends IngestRecord> void copy(WaitBudget budget, Chunk<R> chunk)
      throws SQLException {
    transaction(
        budget,
        chunk.domain(),
        Table.PARENT,
        (c, current) -> {
          long t0 = System.nanoTime();
          int[] written = writer.copy(c, chunk.domain(), chunk.records());
          // One statement set: its time is booked on the parent, not split per table.
          chunk.wrote(Table.PARENT, written[Table.PARENT.ordinal()], System.nanoTime() - t0);
          for (Table t : Table.CHILDREN) {
            chunk.counted(t, written[t.ordinal()]);
          }
        });
  }

  private <R extends IngestRecord> void writeAlone(WaitBudget budget, Table t, Chunk<R> chunk)
      throws SQLException {
    transaction(
        budget,
        chunk.domain(),
        t,
        (c, current) -> {
          long t0 = System.nanoTime();
          int n = writer.write(c, chunk.domain(), t, chunk.records());
          chunk.wrote(t, n, System.nanoTime() - t0);
        });
  }

  /** A transaction's work; it sets {@code current[0]} to the table it is writing. */
  private interface Work {
    void run(Connection c, Table[] current) throws SQLException, InterruptedException;
  }

  /**
   * Runs {@code work} in a transaction of its own; one that lost to a concurrent writer is rolled
   * back and retried as {@link ConflictRetries} says. Each connection is waited for within what is
   * left of {@code budget}.
   */
  private void transaction(WaitBudget budget, Domain<?, ?> domain, Table first, Work work)
      throws SQLException {
    Table[] current = {first};
    for (int attempt = 0; ; attempt++) {
      try (ConnectionPermits.Lease lease = permits.lease(budget)) {
        inTransaction(lease.connection(), current, work);
        return;
      } catch (SQLException e) {
        if (!DatabaseProblems.isConflict(e)) {
          throw e;
        }
        pause(retries.pauseAfter(domain, current[0], e.getSQLState(), attempt));
      }
    }
  }

  private static void pause(long nanos) {
    try {
      Thread.sleep(Duration.ofNanos(nanos));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while backing off a write conflict", e);
    }
  }

  private static void inTransaction(Connection c, Table[] current, Work work) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      work.run(c, current);
      c.commit();
    } catch (SQLException | RuntimeException e) {
      c.rollback();
      throw e;
    } catch (InterruptedException e) {
      c.rollback();
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted", e);
    } finally {
      c.setAutoCommit(auto);
    }
  }
}
