package dev.loomlab.ingest;

import dev.loomlab.database.DbConfig;
import dev.loomlab.database.ReactiveDatabase;
import dev.loomlab.database.TransactionConflict;
import dev.loomlab.execution.EventLoopTimer;
import dev.loomlab.execution.Mode;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.problem.Problem;
import dev.loomlab.problem.ProblemException;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The ingest engine on the event loop: the same chunk (records in key order, tables in one order),
 * strategies, transactions, conflict retries, problems and meters as {@link IngestService}, through
 * the reactive pool and its bulkhead. Parallel writes the three children concurrently, each on a
 * connection and transaction of its own, with no thread held while they wait. COPY has no reactive
 * form.
 */
@ApplicationScoped
public class ReactiveIngestService {

  private final ReactiveDatabase database;
  private final WaitBudgets budgets;
  private final ReactiveChunkWriter writer;
  private final EventLoopTimer timer;
  private final DbConfig dbConfig;
  private final ConflictRetries retries;
  private final IngestMeters meters;
  private final ChunkChecks checks;

  ReactiveIngestService(
      ReactiveDatabase database,
      WaitBudgets budgets,
      ReactiveChunkWriter writer,
      EventLoopTimer timer,
      DbConfig dbConfig,
      ConflictRetries retries,
      IngestMeters meters,
      ChunkChecks checks) {
    this.database = database;
    this.budgets = budgets;
    this.writer = writer;
    this.timer = timer;
    this.dbConfig = dbConfig;
    this.retries = retries;
    this.meters = meters;
    this.checks = checks;
  }

  public <R extends IngestRecord> Uni<BatchResult> batch(
      Domain<R, ?> domain, WriteStrategy writes, List<R> input) {
    if (writes == WriteStrategy.copy) {
      return Uni.createFrom()
          .failure(
              ProblemException.badRequest(
                  "writes=copy has no reactive form: the Vert.x PostgreSQL client has no COPY;"
                      + " nothing was done",
                  List.of(
                      new Problem.Violation(
                          "writes", "use sequential or parallel on the reactive mode"))));
    }
    WaitBudget budget = budgets.current();
    return Uni.createFrom()
        .deferred(
            () -> {
              // On the event loop, as the checks of a REST signature ran: bounded by
              // loomlab.problem.max-violations, and a valid chunk's cost is the records' own.
              checks.check(domain, input);
              Chunk<R> chunk = Chunk.of(domain, input);
              Uni<Void> written =
                  writes == WriteStrategy.sequential
                      ? sequential(budget, chunk)
                      : parallel(budget, chunk);
              return written.map(done -> chunk.landed(meters, Mode.REACTIVE, writes));
            });
  }

  /** All four tables in one transaction: all or nothing. */
  private <R extends IngestRecord> Uni<Void> sequential(WaitBudget budget, Chunk<R> chunk) {
    return transaction(
        budget,
        chunk.domain(),
        Table.PARENT,
        (c, current) -> {
          Uni<Void> tables = Uni.createFrom().voidItem();
          for (Table t : Table.values()) {
            tables =
                tables.chain(
                    () -> {
                      current[0] = t;
                      return write(c, chunk, t);
                    });
          }
          return tables;
        });
  }

  /**
   * The parent committed first, then the three children at once, each in a transaction of its own.
   * A failed child leaves the parent and the other children committed; a replay converges.
   */
  private <R extends IngestRecord> Uni<Void> parallel(WaitBudget budget, Chunk<R> chunk) {
    return alone(budget, chunk, Table.PARENT)
        .chain(
            () ->
                Uni.join()
                    .all(
                        Table.CHILDREN.stream()
                            .map(
                                t ->
                                    alone(budget, chunk, t)
                                        .onItemOrFailure()
                                        .transform((done, failure) -> new Outcome(t, failure)))
                            .toList())
                    .andFailFast())
        .invoke(
            outcomes -> {
              Map<Table, Throwable> failures = new EnumMap<>(Table.class);
              for (Outcome o : outcomes) {
                if (o.failure() != null) {
                  failures.put(o.table(), o.failure());
                }
              }
              WriteProblems.throwIfChildrenFailed(chunk.domain(), failures, dbConfig);
            })
        .replaceWithVoid();
  }

  /** How one child's transaction ended: {@code failure} null if it committed. */
  private record Outcome(Table table, Throwable failure) {}

  private <R extends IngestRecord> Uni<Void> alone(WaitBudget budget, Chunk<R> chunk, Table t) {
    return transaction(budget, chunk.domain(), t, (c, current) -> write(c, chunk, t));
  }

  private <R extends IngestRecord> Uni<Void> write(SqlConnection c, Chunk<R> chunk, Table t) {
    return Uni.createFrom()
        .deferred(
            () -> {
              long t0 = System.nanoTime();
              return writer
                  .write(c, chunk.domain(), t, chunk.records())
                  .invoke(n -> chunk.wrote(t, n, System.nanoTime() - t0))
                  .replaceWithVoid();
            });
  }

  /** A transaction's work; it sets {@code current[0]} to the table it is writing. */
  private interface Work {
    Uni<Void> run(SqlConnection c, Table[] current);
  }

  /**
   * Runs {@code work} in a transaction of its own; one that lost to a concurrent writer is rolled
   * back and retried as {@link ConflictRetries} says, the pause on a timer with no connection held.
   * Each connection is waited for within what is left of {@code budget}.
   */
  private Uni<Void> transaction(WaitBudget budget, Domain<?, ?> domain, Table first, Work work) {
    return attempt(budget, domain, new Table[] {first}, work, 0);
  }

  private Uni<Void> attempt(
      WaitBudget budget, Domain<?, ?> domain, Table[] current, Work work, int attempt) {
    return database
        .inTransaction(budget, c -> work.run(c, current))
        .onFailure(TransactionConflict.class)
        .recoverWithUni(
            failure -> {
              long pause;
              try {
                pause =
                    retries.pauseAfter(
                        domain, current[0], ((TransactionConflict) failure).sqlState(), attempt);
              } catch (ProblemException refused) {
                // Returned, not thrown: Mutiny wraps what this function throws with the failure.
                return Uni.createFrom().failure(refused);
              }
              return timer
                  .after(TimeUnit.NANOSECONDS.toMillis(pause), () -> null)
                  .chain(() -> attempt(budget, domain, current, work, attempt + 1));
            });
  }
}
