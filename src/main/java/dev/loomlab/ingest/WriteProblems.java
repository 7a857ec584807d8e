package dev.loomlab.ingest;

import dev.loomlab.database.DbConfig;
import dev.loomlab.problem.ProblemException;
import dev.loomlab.problem.ProblemType;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.jboss.logging.Logger;

/**
 * What both engines answer when a transaction loses to concurrent writers or a parallel write lands
 * in part, and how long they back off before a retry: one wording, one rule.
 */
final class WriteProblems {

  private static final Logger LOG = Logger.getLogger(WriteProblems.class);

  private WriteProblems() {}

  /**
   * The parent committed, then {@code failures} of the children failed (in table order): 500 {@code
   * partial-write-refused} if the database refused a child's data (a replay cannot converge), 503
   * {@code write-conflict} if each lost to a concurrent writer, else 500 {@code partial-write}
   * (replay converges), naming the tables. Nothing when none failed.
   */
  static void throwIfChildrenFailed(
      Domain<?, ?> domain, Map<Table, Throwable> failures, DbConfig db) {
    if (failures.isEmpty()) {
      return;
    }
    List<String> failed = new ArrayList<>();
    List<String> causes = new ArrayList<>();
    boolean allConflicts = true;
    boolean refusedByDatabase = false;
    for (Map.Entry<Table, Throwable> e : failures.entrySet()) {
      String table = domain.table(e.getKey());
      failed.add(table);
      causes.add(table + ": " + describe(e.getValue()));
      allConflicts &=
          e.getValue() instanceof ProblemException p && p.type() == ProblemType.WRITE_CONFLICT;
      refusedByDatabase |= e.getValue() instanceof ProblemException p && p.refusedData();
    }
    String detail =
        "wrote "
            + domain.noun()
            + " and "
            + (Table.CHILDREN.size() - failed.size())
            + " of "
            + Table.CHILDREN.size()
            + " child tables; failed: "
            + String.join("; ", causes)
            + ". Every write is an upsert: replay the same chunk.";
    if (refusedByDatabase) {
      throw ProblemException.partialWriteRefused(
          detail.replace(
              "Every write is an upsert: replay the same chunk.",
              "The database refused the data itself: a replay of the same chunk meets the same"
                  + " refusal; correct the records and send them again."),
          failed);
    }
    throw allConflicts
        ? ProblemException.writeConflict(detail, failed, db.retryAfterSeconds())
        : ProblemException.partialWrite(detail, failed);
  }

  /** A transaction writing {@code table} still conflicted after every retry: 503, nothing kept. */
  static ProblemException conflictsExhausted(
      Domain<?, ?> domain, Table table, String sqlState, IngestConfig config, DbConfig db) {
    return ProblemException.writeConflict(
        "writing "
            + domain.table(table)
            + " still conflicted with a concurrent writer (SQLState "
            + sqlState
            + ") after "
            + config.conflictRetries()
            + " retries (loomlab.ingest.conflict-retries); nothing of this transaction"
            + " was kept, replay the chunk",
        List.of(domain.table(table)),
        db.retryAfterSeconds());
  }

  /** Full jitter: a random wait up to {@code conflict-backoff} doubled per attempt. */
  static long backoffNanos(IngestConfig config, int attempt) {
    long capNanos = config.conflictBackoff().toNanos() << Math.min(attempt, 10);
    return ThreadLocalRandom.current().nextLong(capNanos + 1);
  }

  /** What a client may read of a child's failure: a problem's detail, never a class name. */
  private static String describe(Throwable failure) {
    if (failure instanceof ProblemException p) {
      return p.getMessage();
    }
    LOG.error("a child table's write failed", failure);
    return "unexpected error (logged by the service)";
  }
}
