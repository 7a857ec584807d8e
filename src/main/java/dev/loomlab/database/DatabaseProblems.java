package dev.loomlab.database;

import dev.loomlab.problem.ProblemException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Locale;
import org.jboss.logging.Logger;

/**
 * What a database failure means to a client: pool exhausted or database unreachable are 503 with a
 * {@code Retry-After} (the service recovers by itself), anything else is a server error with its
 * SQLState (the full error is logged).
 */
public final class DatabaseProblems {

  private static final Logger LOG = Logger.getLogger(DatabaseProblems.class);

  private DatabaseProblems() {}

  public static RuntimeException of(SQLException e, DbConfig config) {
    if (isAcquisitionTimeout(e)) {
      return ProblemException.unavailable(
          "no database connection free within quarkus.datasource.jdbc.acquisition-timeout; retry later",
          config.retryAfterSeconds());
    }
    if (isConnectionFailure(e)) {
      return ProblemException.databaseUnavailable(
          "the database is unreachable (" + e.getMessage() + "); retry later",
          config.downRetryAfterSeconds());
    }
    LOG.errorf(e, "database error %s", e.getSQLState());
    return ProblemException.databaseError(
        "the database refused the statement (SQLState "
            + e.getSQLState()
            + "), logged by the service");
  }

  static boolean isAcquisitionTimeout(SQLException e) {
    // Agroal: "Sorry, acquisition timeout!"
    String message = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
    return message.contains("acquisition timeout");
  }

  /**
   * A transaction that lost to a concurrent one and may simply be retried: deadlock detected
   * (40P01) or serialization failure (40001), also when a JDBC batch carries it as its next
   * exception.
   */
  public static boolean isConflict(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      for (SQLException s = t instanceof SQLException q ? q : null;
          s != null;
          s = s.getNextException()) {
        if ("40P01".equals(s.getSQLState()) || "40001".equals(s.getSQLState())) {
          return true;
        }
      }
    }
    return false;
  }

  static boolean isConnectionFailure(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof SQLTransientConnectionException) {
        return true;
      }
      if (t instanceof SQLException s && s.getSQLState() != null) {
        String state = s.getSQLState();
        // 08: connection exception; 57P01-57P03: the server is shutting down or starting up.
        if (state.startsWith("08") || state.startsWith("57P")) {
          return true;
        }
      }
      if (t instanceof java.net.ConnectException) {
        return true;
      }
    }
    return false;
  }
}
