package dev.loomlab.db;

import dev.loomlab.problem.ProblemException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.Locale;

/**
 * What a database failure means to a client: pool exhausted or database unreachable are 503 with a
 * {@code Retry-After} (the service recovers by itself), anything else is a server error.
 */
public final class DatabaseProblems {

  private DatabaseProblems() {}

  public static RuntimeException of(SQLException e, DbConfig config) {
    if (isAcquisitionTimeout(e)) {
      return ProblemException.unavailable(
          "no database connection free within quarkus.datasource.jdbc.acquisition-timeout; retry later",
          config.retryAfterSeconds());
    }
    if (isConnectionFailure(e)) {
      return ProblemException.unavailable(
          "the database is unreachable (" + e.getMessage() + "); retry later",
          config.downRetryAfterSeconds());
    }
    return new IllegalStateException("database error " + e.getSQLState(), e);
  }

  static boolean isAcquisitionTimeout(SQLException e) {
    // Agroal: "Sorry, acquisition timeout!"
    String message = e.getMessage() == null ? "" : e.getMessage().toLowerCase(Locale.ROOT);
    return message.contains("acquisition timeout");
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
