package dev.loomlab.database;

/**
 * A reactive transaction lost to a concurrent one (deadlock detected, 40P01, or serialization
 * failure, 40001) and was rolled back: the caller may retry it. Never shown to a client.
 */
public final class TransactionConflict extends RuntimeException {

  private final String sqlState;

  TransactionConflict(String sqlState, Throwable cause) {
    super("transaction conflict (SQLState " + sqlState + ")", cause, false, false);
    this.sqlState = sqlState;
  }

  public String sqlState() {
    return sqlState;
  }

  static boolean isConflict(String sqlState) {
    return "40P01".equals(sqlState) || "40001".equals(sqlState);
  }
}
