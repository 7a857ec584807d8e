package dev.loomlab.ingest;

import dev.loomlab.database.DbConfig;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * The one policy both engines follow when a transaction loses to a concurrent writer (deadlock or
 * serialization failure): retried up to {@code loomlab.ingest.conflict-retries} times after a
 * jittered pause with no connection held, then 503 {@code write-conflict} naming the table; each
 * outcome counted in {@code loomlab.ingest.conflicts}.
 */
@ApplicationScoped
class ConflictRetries {

  private final IngestConfig config;
  private final DbConfig db;
  private final IngestMeters meters;

  ConflictRetries(IngestConfig config, DbConfig db, IngestMeters meters) {
    this.config = config;
    this.db = db;
    this.meters = meters;
  }

  /**
   * After attempt {@code attempt} (0 the first) of a transaction writing {@code table} lost with
   * {@code sqlState}: the pause before the next, in nanoseconds; or, the retries spent, the 503 to
   * answer, thrown.
   */
  long pauseAfter(Domain<?, ?> domain, Table table, String sqlState, int attempt) {
    boolean retry = attempt < config.conflictRetries();
    meters.conflicts(domain, table, retry).increment();
    if (!retry) {
      throw WriteProblems.conflictsExhausted(domain, table, sqlState, config, db);
    }
    return WriteProblems.backoffNanos(config, attempt);
  }
}
