package dev.loomlab.recruits;

import dev.loomlab.db.DatabaseProblems;
import dev.loomlab.db.DbConfig;
import dev.loomlab.execution.FanOutExecutors;
import dev.loomlab.execution.Mode;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.ProblemException;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;

/**
 * Upserts a chunk of recruits into the parent and its three child tables (seed D), sequentially in
 * one transaction, in parallel (parent first, then the children at once on the request's model), or
 * through COPY (the anchor).
 */
@ApplicationScoped
public class RecruitsService {

  private static final List<Table> CHILDREN =
      List.of(Table.SKILL, Table.DESCRIPTION, Table.EMBEDDING);

  private final AgroalDataSource dataSource;
  private final RecruitWriter writer;
  private final RecruitReader reader;
  private final FanOutExecutors executors;
  private final DbConfig dbConfig;
  // Registered once here rather than looked up on every batch.
  private final Map<MeterKey, Timer> tableTimers = new HashMap<>();
  private final Map<MeterKey, Counter> recordCounters = new HashMap<>();

  RecruitsService(
      AgroalDataSource dataSource,
      RecruitWriter writer,
      RecruitReader reader,
      FanOutExecutors executors,
      DbConfig dbConfig,
      MeterRegistry registry) {
    this.dataSource = dataSource;
    this.writer = writer;
    this.reader = reader;
    this.executors = executors;
    this.dbConfig = dbConfig;
    for (Mode mode : Mode.values()) {
      for (WriteStrategy writes : WriteStrategy.values()) {
        recordCounters.put(
            new MeterKey(mode, writes, null),
            Counter.builder("loomlab.recruits.records")
                .description("Recruits written")
                .tag("writes", writes.name())
                .tag("mode", mode.id())
                .register(registry));
        for (Table table : Table.values()) {
          tableTimers.put(
              new MeterKey(mode, writes, table),
              Timer.builder("loomlab.recruits.table")
                  .description("Time to write one table of a chunk")
                  .tag("table", table.sqlName())
                  .tag("writes", writes.name())
                  .tag("mode", mode.id())
                  .register(registry));
        }
      }
    }
  }

  public BatchResult batch(Mode mode, WriteStrategy writes, List<RecruitInput> chunk) {
    long start = System.nanoTime();
    Map<Table, Integer> rows = new EnumMap<>(Table.class);
    Map<Table, Long> nanos = new EnumMap<>(Table.class);
    try {
      switch (writes) {
        case sequential -> sequential(chunk, rows, nanos);
        case parallel -> parallel(mode, chunk, rows, nanos);
        case copy -> copy(chunk, rows, nanos);
      }
    } catch (SQLException e) {
      throw DatabaseProblems.of(e, dbConfig);
    }
    nanos.forEach(
        (table, n) ->
            tableTimers.get(new MeterKey(mode, writes, table)).record(n, TimeUnit.NANOSECONDS));
    recordCounters.get(new MeterKey(mode, writes, null)).increment(chunk.size());
    Map<String, Integer> rowsOut = new LinkedHashMap<>();
    Map<String, Long> msOut = new LinkedHashMap<>();
    for (Table t : Table.values()) {
      rowsOut.put(t.sqlName(), rows.getOrDefault(t, 0));
      msOut.put(t.sqlName(), TimeUnit.NANOSECONDS.toMillis(nanos.getOrDefault(t, 0L)));
    }
    return new BatchResult(
        mode.id(),
        writes.name(),
        chunk.size(),
        rowsOut,
        msOut,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  public RecruitView find(long id) {
    Bounds.check("id", id, 1, Long.MAX_VALUE);
    try {
      return reader
          .find(id)
          .orElseThrow(() -> ProblemException.notFound("no recruit with id " + id));
    } catch (SQLException e) {
      throw DatabaseProblems.of(e, dbConfig);
    }
  }

  /** All four tables in one transaction: all or nothing. */
  private void sequential(
      List<RecruitInput> chunk, Map<Table, Integer> rows, Map<Table, Long> nanos)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      inTransaction(
          c,
          () -> {
            for (Table t : Table.values()) {
              long t0 = System.nanoTime();
              rows.put(t, writer.write(c, t, chunk));
              nanos.put(t, System.nanoTime() - t0);
            }
          });
    }
  }

  /**
   * The parent committed first (the children's foreign keys need it), then the three children at
   * once, each on its own connection and transaction. A failed child leaves the parent and the
   * other children committed; replaying the chunk converges, every write being an upsert.
   */
  private void parallel(
      Mode mode, List<RecruitInput> chunk, Map<Table, Integer> rows, Map<Table, Long> nanos)
      throws SQLException {
    writeAlone(Table.RECRUIT, chunk, rows, nanos);
    Map<Table, Future<?>> futures = new EnumMap<>(Table.class);
    try {
      for (Table t : CHILDREN) {
        futures.put(
            t,
            executors
                .executor(mode)
                .submit(
                    () -> {
                      writeAlone(t, chunk, rows, nanos);
                      return null;
                    }));
      }
    } catch (RejectedExecutionException e) {
      futures.values().forEach(f -> f.cancel(true));
      throw ProblemException.unavailable(
          "the " + mode.id() + " fan-out pool is full; replay the chunk later", 1);
    }
    List<String> failed = new ArrayList<>();
    List<String> causes = new ArrayList<>();
    for (Map.Entry<Table, Future<?>> e : futures.entrySet()) {
      try {
        e.getValue().get();
      } catch (ExecutionException ex) {
        failed.add(e.getKey().sqlName());
        causes.add(e.getKey().sqlName() + ": " + ex.getCause().getMessage());
      } catch (InterruptedException ex) {
        futures.values().forEach(f -> f.cancel(true));
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while writing children", ex);
      }
    }
    if (!failed.isEmpty()) {
      throw ProblemException.partialWrite(
          "wrote recruit and "
              + (CHILDREN.size() - failed.size())
              + " of 3 child tables; failed: "
              + String.join("; ", causes)
              + ". Every write is an upsert: replay the same chunk.",
          failed);
    }
  }

  private void copy(List<RecruitInput> chunk, Map<Table, Integer> rows, Map<Table, Long> nanos)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      long t0 = System.nanoTime();
      int[] written = new int[4];
      inTransaction(c, () -> System.arraycopy(writer.copy(c, chunk), 0, written, 0, 4));
      for (Table t : Table.values()) {
        rows.put(t, written[t.ordinal()]);
      }
      nanos.put(Table.RECRUIT, System.nanoTime() - t0); // one statement set: not split per table
    }
  }

  private void writeAlone(
      Table t, List<RecruitInput> chunk, Map<Table, Integer> rows, Map<Table, Long> nanos)
      throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      long t0 = System.nanoTime();
      int[] n = new int[1];
      inTransaction(c, () -> n[0] = writer.write(c, t, chunk));
      synchronized (rows) {
        rows.put(t, n[0]);
        nanos.put(t, System.nanoTime() - t0);
      }
    }
  }

  private interface Work {
    void run() throws SQLException, InterruptedException;
  }

  private static void inTransaction(Connection c, Work work) throws SQLException {
    boolean auto = c.getAutoCommit();
    c.setAutoCommit(false);
    try {
      work.run();
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

  /** Which meter: a (mode, writes) pair, and the table for the per-table timers. */
  private record MeterKey(Mode mode, WriteStrategy writes, Table table) {}
}
