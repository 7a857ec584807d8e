package dev.loomlab.database;

import dev.loomlab.problem.ProblemException;
import java.sql.SQLException;
import java.sql.SQLTransientConnectionException;
import java.util.List;
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
    RuntimeException timedOut = timedOut(stateOf(e), config);
    if (timedOut != null) {
      return timedOut;
    }
    if (isConnectionFailure(e)) {
      LOG.debugf(e, "database unreachable");
      return ProblemException.databaseUnavailable(
          "the database is unreachable; retry later", config.downRetryAfterSeconds());
    }
    LOG.errorf(e, "database error %s", e.getSQLState());
    return ProblemException.databaseError(
        "the database refused the statement (SQLState "
            + e.getSQLState()
            + "), logged by the service",
        e.getSQLState());
  }

  /**
   * A statement that ran past {@code loomlab.db.statement-timeout} (57014) or waited past {@code
   * loomlab.db.lock-timeout} for a row another transaction holds (55P03): 503, safe to retry (the
   * transaction rolled back); null for any other state.
   */
  static ProblemException timedOut(String sqlState, DbConfig config) {
    if ("55P03".equals(sqlState)) {
      return ProblemException.writeConflict(
          "a row of the request stayed locked by another transaction past loomlab.db.lock-timeout ("
              + config.lockTimeout().toMillis()
              + " ms); nothing was written, retry later",
          List.of(),
          config.retryAfterSeconds());
    }
    if ("57014".equals(sqlState)) {
      return ProblemException.unavailable(
          "a statement ran past loomlab.db.statement-timeout ("
              + config.statementTimeout().toMillis()
              + " ms) and was cancelled; nothing was written, retry later",
          config.retryAfterSeconds());
    }
    return null;
  }

  /** The first SQLState along the causes and batch chain. */
  private static String stateOf(SQLException e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      for (SQLException s = t instanceof SQLException q ? q : null;
          s != null;
          s = s.getNextException()) {
        if (s.getSQLState() != null) {
          return s.getSQLState();
        }
      }
    }
    return null;
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
