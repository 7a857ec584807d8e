package dev.loomlab.recruits;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * Direct JDBC to the service's database, for tests that look at rows themselves or inject a
 * failure. Reads the same configuration as the service (QUARKUS_DATASOURCE_* from ./lab).
 */
final class TestDatabase {

  private TestDatabase() {}

  static Connection connect() throws SQLException {
    Config c = ConfigProvider.getConfig();
    return DriverManager.getConnection(
        c.getValue("quarkus.datasource.jdbc.url", String.class),
        c.getOptionalValue("quarkus.datasource.username", String.class).orElse(null),
        c.getOptionalValue("quarkus.datasource.password", String.class).orElse(null));
  }

  /** Rows of {@code table} whose recruit id lies in [from, to]. */
  static int count(String table, long from, long to) throws SQLException {
    String column = table.equals("recruit") ? "id" : "recruit_id";
    try (Connection c = connect();
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT count(*) FROM " + table + " WHERE " + column + " BETWEEN ? AND ?")) {
      ps.setLong(1, from);
      ps.setLong(2, to);
      try (ResultSet rs = ps.executeQuery()) {
        rs.next();
        return rs.getInt(1);
      }
    }
  }

  static void deleteRecruits(long from, long to) throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps = c.prepareStatement("DELETE FROM recruit WHERE id BETWEEN ? AND ?")) {
      ps.setLong(1, from);
      ps.setLong(2, to);
      ps.executeUpdate();
    }
  }

  static void execute(String sql) throws SQLException {
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
