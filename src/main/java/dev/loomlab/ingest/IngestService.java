package dev.loomlab.ingest;

import dev.loomlab.db.DatabaseProblems;
import dev.loomlab.db.DbConfig;
import dev.loomlab.execution.FanOutExecutors;
import dev.loomlab.execution.Mode;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.ProblemException;
import dev.loomlab.problem.ProblemType;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.jboss.logging.Logger;

/**
 * The ingest engine (seed D), one for every domain: upserts a chunk into the domain's parent and
 * three child tables sequentially in one transaction, in parallel (parent first, then the children
 * at once on an executor of the request's model), or through COPY (the anchor). Transactions that
 * lose to a concurrent writer are retried; metrics carry the domain.
 */
@ApplicationScoped
public class IngestService {

  private static final Logger LOG = Logger.getLogger(IngestService.class);
  private static final List<Table> CHILDREN = List.of(Table.SKILL, Table.TEXT, Table.EMBEDDING);

  private final AgroalDataSource dataSource;
  private final ChunkWriter writer;
  private final IngestReader reader;
  private final FanOutExecutors executors;
  private final DbConfig dbConfig;
  private final IngestConfig config;
  private final MeterRegistry registry;
  private final Map<MeterKey, Timer> timers = new ConcurrentHashMap<>();
  private final Map<MeterKey, Counter> counters = new ConcurrentHashMap<>();

  IngestService(
      AgroalDataSource dataSource,
      ChunkWriter writer,
      IngestReader reader,
      FanOutExecutors executors,
      DbConfig dbConfig,
      IngestConfig config,
      MeterRegistry registry) {
    this.dataSource = dataSource;
    this.writer = writer;
    this.reader = reader;
    this.executors = executors;
    this.dbConfig = dbConfig;
    this.config = config;
    this.registry = registry;
  }

  public <R extends IngestRecord> BatchResult batch(
      Domain<R, ?> domain, Mode mode, WriteStrategy writes, List<R> input) {
    long start = System.nanoTime();
    // Rows locked in one order (by key) and tables in one order: writers of overlapping chunks
    // queue behind each other instead of deadlocking.
    List<R> chunk = input.stream().sorted(Comparator.comparing(IngestRecord::id)).toList();
    Map<Table, Integer> rows = new EnumMap<>(Table.class);
    Map<Table, Long> nanos = new EnumMap<>(Table.class);
    Chunk<R> job = new Chunk<>(domain, chunk, rows, nanos);
    try {
      switch (writes) {
        case sequential -> sequential(job);
        case parallel -> parallel(mode, job);
        case copy -> copy(job);
      }
    } catch (SQLException e) {
      throw DatabaseProblems.of(e, dbConfig);
    }
    nanos.forEach(
        (table, n) -> tableTimer(domain, mode, writes, table).record(n, TimeUnit.NANOSECONDS));
    records(domain, mode, writes).increment(chunk.size());
    Map<String, Integer> rowsOut = new LinkedHashMap<>();
    Map<String, Long> msOut = new LinkedHashMap<>();
    for (Table t : Table.values()) {
      rowsOut.put(domain.table(t), rows.getOrDefault(t, 0));
      msOut.put(domain.table(t), TimeUnit.NANOSECONDS.toMillis(nanos.getOrDefault(t, 0L)));
    }
    return new BatchResult(
        domain.name(),
        mode.id(),
        writes.name(),
        chunk.size(),
        rowsOut,
        msOut,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
  }

  public <V> V find(Domain<?, V> domain, long id) {
    Bounds.check("id", id, 1, Long.MAX_VALUE);
    try {
      return reader
          .find(domain, id)
          .orElseThrow(() -> ProblemException.notFound("no " + domain.noun() + " with id " + id));
    } catch (SQLException e) {
      throw DatabaseProblems.of(e, dbConfig);
    }
  }

  /** A chunk on its way: the domain, the records in key order, and what each table took. */
  private record Chunk<R extends IngestRecord>(
      Domain<R, ?> domain, List<R> records, Map<Table, Integer> rows, Map<Table, Long> nanos) {

    void wrote(Table t, int n, long nanosTaken) {
      synchronized (rows) {
        rows.put(t, n);
        nanos.put(t, nanosTaken);
      }
    }
  }

  /** All four tables in one transaction: all or nothing. */
  private <R extends IngestRecord> void sequential(Chunk<R> job) throws SQLException {
    transaction(
        job.domain(),
        Table.PARENT,
        (c, current) -> {
          for (Table t : Table.values()) {
            current[0] = t;
            long t0 = System.nanoTime();
            int n = writer.write(c, job.domain(), t, job.records());
            job.wrote(t, n, System.nanoTime() - t0);
          }
        });
  }

  /**
   * The parent committed first (the children's foreign keys need it), then the three children at
   * once, each on its own connection and transaction. A failed child leaves the parent and the
   * other children committed; replaying the chunk converges, every write being an upsert.
   */
  private <R extends IngestRecord> void parallel(Mode mode, Chunk<R> job) throws SQLException {
    writeAlone(Table.PARENT, job);
    Map<Table, Future<?>> futures = new EnumMap<>(Table.class);
    try {
      for (Table t : CHILDREN) {
        futures.put(
            t,
            executors
                .executor(mode)
                .submit(
                    () -> {
                      try {
                        writeAlone(t, job);
                      } catch (SQLException e) {
                        throw DatabaseProblems.of(e, dbConfig);
                      }
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
    boolean allConflicts = true;
    for (Map.Entry<Table, Future<?>> e : futures.entrySet()) {
      String table = job.domain().table(e.getKey());
      try {
        e.getValue().get();
      } catch (ExecutionException ex) {
        failed.add(table);
        causes.add(table + ": " + describe(ex.getCause()));
        allConflicts &=
            ex.getCause() instanceof ProblemException p && p.type() == ProblemType.WRITE_CONFLICT;
      } catch (InterruptedException ex) {
        futures.values().forEach(f -> f.cancel(true));
        Thread.currentThread().interrupt();
        throw new IllegalStateException("interrupted while writing children", ex);
      }
    }
    if (failed.isEmpty()) {
      return;
    }
    String detail =
        "wrote "
            + job.domain().noun()
            + " and "
            + (CHILDREN.size() - failed.size())
            + " of 3 child tables; failed: "
            + String.join("; ", causes)
            + ". Every write is an upsert: replay the same chunk.";
    throw allConflicts
        ? ProblemException.writeConflict(detail, failed, dbConfig.retryAfterSeconds())
        : ProblemException.partialWrite(detail, failed);
  }

  /** What a client may read of a child's failure: a problem's detail, never a class name. */
  private static String describe(Throwable failure) {
    if (failure instanceof ProblemException p) {
      return p.getMessage();
    }
    LOG.error("a child table's write failed", failure);
    return "unexpected error (logged by the service)";
  }

  private <R extends IngestRecord> void copy(Chunk<R> job) throws SQLException {
    transaction(
        job.domain(),
        Table.PARENT,
        (c, current) -> {
          long t0 = System.nanoTime();
          int[] written = writer.copy(c, job.domain(), job.records());
          // One statement set: its time is booked on the parent, not split per table.
          job.wrote(Table.PARENT, written[Table.PARENT.ordinal()], System.nanoTime() - t0);
          for (Table t : CHILDREN) {
            job.rows().put(t, written[t.ordinal()]);
          }
        });
  }

  private <R extends IngestRecord> void writeAlone(Table t, Chunk<R> job) throws SQLException {
    transaction(
        job.domain(),
        t,
        (c, current) -> {
          long t0 = System.nanoTime();
          int n = writer.write(c, job.domain(), t, job.records());
          job.wrote(t, n, System.nanoTime() - t0);
        });
  }

  /** A transaction's work; it sets {@code current[0]} to the table it is writing. */
  private interface Work {
    void run(Connection c, Table[] current) throws SQLException, InterruptedException;
  }

  /**
   * Runs {@code work} in a transaction of its own; one that lost to a concurrent writer (deadlock,
   * serialization failure) is rolled back and retried up to {@code conflict-retries} times after a
   * jittered wait without a connection, then answered 503 {@code write-conflict} naming the table.
   */
  private void transaction(Domain<?, ?> domain, Table first, Work work) throws SQLException {
    Table[] current = {first};
    for (int attempt = 0; ; attempt++) {
      try (Connection c = dataSource.getConnection()) {
        inTransaction(c, current, work);
        return;
      } catch (SQLException e) {
        if (!DatabaseProblems.isConflict(e)) {
          throw e;
        }
        boolean retry = attempt < config.conflictRetries();
        conflicts(domain, current[0], retry).increment();
        if (!retry) {
          throw ProblemException.writeConflict(
              "writing "
                  + domain.table(current[0])
                  + " still conflicted with a concurrent writer (SQLState "
                  + e.getSQLState()
                  + ") after "
                  + config.conflictRetries()
                  + " retries (loomlab.ingest.conflict-retries); nothing of this transaction"
                  + " was kept, replay the chunk",
              List.of(domain.table(current[0])),
              dbConfig.retryAfterSeconds());
        }
      }
      backoff(attempt);
    }
  }

  private void backoff(int attempt) {
    long capNanos = config.conflictBackoff().toNanos() << Math.min(attempt, 10);
    try {
      Thread.sleep(Duration.ofNanos(ThreadLocalRandom.current().nextLong(capNanos + 1)));
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while backing off a write conflict", e);
    }
  }

  // Meters looked up once per tag set, not built on every batch.
  private record MeterKey(String domain, Mode mode, WriteStrategy writes, Table table) {}

  private Timer tableTimer(Domain<?, ?> domain, Mode mode, WriteStrategy writes, Table table) {
    return timers.computeIfAbsent(
        new MeterKey(domain.name(), mode, writes, table),
        k ->
            Timer.builder("loomlab.ingest.table")
                .description("Time to write one table of a chunk")
                .tag("domain", domain.name())
                .tag("table", domain.table(table))
                .tag("writes", writes.name())
                .tag("mode", mode.id())
                .register(registry));
  }

  private Counter records(Domain<?, ?> domain, Mode mode, WriteStrategy writes) {
    return counters.computeIfAbsent(
        new MeterKey(domain.name(), mode, writes, null),
        k ->
            Counter.builder("loomlab.ingest.records")
                .description("Records written")
                .tag("domain", domain.name())
                .tag("writes", writes.name())
                .tag("mode", mode.id())
                .register(registry));
  }

  private Counter conflicts(Domain<?, ?> domain, Table table, boolean retried) {
    return Counter.builder("loomlab.ingest.conflicts")
        .description(
            "Transactions that lost to a concurrent writer (deadlock or serialization failure):"
                + " retried, or refused with 503 write-conflict once the retries ran out")
        .tag("domain", domain.name())
        .tag("table", domain.table(table))
        .tag("outcome", retried ? "retried" : "refused")
        .register(registry);
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
