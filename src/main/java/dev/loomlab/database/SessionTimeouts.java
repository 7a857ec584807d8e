package dev.loomlab.database;

import io.agroal.api.AgroalPoolInterceptor;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;

/**
 * Every connection of the service, JDBC and reactive, starts its session with {@link DbConfig}'s
 * statement, lock and idle-in-transaction timeouts, so no statement, no lock wait and no open
 * transaction left waiting is unbounded. Agroal calls this for each connection it opens (Quarkus
 * finds the interceptor as a bean); the reactive pool sends the same settings in its start-up
 * message ({@link #settings}).
 */
@ApplicationScoped
class SessionTimeouts implements AgroalPoolInterceptor {

  private final DbConfig config;

  SessionTimeouts(DbConfig config) {
    this.config = config;
  }

  /** The session settings, as PostgreSQL takes them (milliseconds). */
  static Map<String, String> settings(DbConfig config) {
    return Map.of(
        "statement_timeout",
        String.valueOf(config.statementTimeout().toMillis()),
        "lock_timeout",
        String.valueOf(config.lockTimeout().toMillis()),
        "idle_in_transaction_session_timeout",
        String.valueOf(config.idleInTransactionTimeout().toMillis()));
  }

  @Override
  public void onConnectionCreate(Connection connection) {
    try (Statement s = connection.createStatement()) {
      for (var setting : settings(config).entrySet()) {
        s.execute("SET " + setting.getKey() + " = " + Long.parseLong(setting.getValue()));
      }
      if (!connection.getAutoCommit()) {
        connection.commit();
      }
    } catch (SQLException e) {
      throw new IllegalStateException("could not set the session's timeouts", e);
    }
  }
}
