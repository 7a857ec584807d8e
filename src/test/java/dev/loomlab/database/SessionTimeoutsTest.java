package dev.loomlab.database;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every session of the service, from the JDBC pool and from the reactive pool, has its statement,
 * lock and idle-in-transaction timeouts set as configured: as PostgreSQL itself reports them.
 */
@QuarkusTest
class SessionTimeoutsTest {

  @Inject AgroalDataSource jdbc;
  @Inject Pool reactive;
  @Inject DbConfig config;

  private Map<String, String> expected() {
    return Map.of(
        "statement_timeout", seconds(config.statementTimeout()),
        "lock_timeout", seconds(config.lockTimeout()),
        "idle_in_transaction_session_timeout", seconds(config.idleInTransactionTimeout()));
  }

  /** PostgreSQL's SHOW form of a whole number of seconds, e.g. "30s". */
  private static String seconds(Duration d) {
    return d.toSeconds() + "s";
  }

  @Test
  void jdbcSessionsHaveEveryTimeout() throws Exception {
    try (Connection c = jdbc.getConnection();
        Statement s = c.createStatement()) {
      for (var setting : expected().entrySet()) {
        try (ResultSet r = s.executeQuery("SHOW " + setting.getKey())) {
          r.next();
          assertThat(setting.getKey(), r.getString(1), equalTo(setting.getValue()));
        }
      }
    }
  }

  @Test
  void reactiveSessionsHaveEveryTimeout() {
    for (var setting : expected().entrySet()) {
      String shown =
          reactive
              .query("SHOW " + setting.getKey())
              .execute()
              .await()
              .atMost(Duration.ofSeconds(60))
              .iterator()
              .next()
              .getString(0);
      assertThat(setting.getKey(), shown, equalTo(setting.getValue()));
    }
  }
}
