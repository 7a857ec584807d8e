package dev.loomlab.ingest;

/** How a chunk reaches the four tables. */
public enum WriteStrategy {
  /** The four tables one after another in one transaction: all or nothing. */
  sequential,
  /**
   * The parent in its own transaction, then the three children at once, each on its own connection
   * and transaction, on an executor of the request's model. Faster; a child failure leaves the
   * parent committed, and a replay of the chunk converges.
   */
  parallel,
  /**
   * The physical anchor: COPY into temporary tables, then one upsert per table, in one transaction.
   * The fastest way PostgreSQL loads these rows; both modes are compared to it.
   */
  copy
}
