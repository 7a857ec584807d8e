package dev.loomlab.ingest;

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
public final class TestDatabase {

  private TestDatabase() {}

  static Connection connect() throws SQLException {
    Config c = ConfigProvider.getConfig();
    return DriverManager.getConnection(
        c.getValue("quarkus.datasource.jdbc.url", String.class),
        c.getOptionalValue("quarkus.datasource.username", String.class).orElse(null),
        c.getOptionalValue("quarkus.datasource.password", String.class).orElse(null));
  }

  /**
   * Rows of {@code table} whose key lies in [from, to]: {@code id} for the parent ({@code noun}),
   * {@code <noun>_id} for its children.
   */
  public static int count(String noun, String table, long from, long to) throws SQLException {
    String column = table.equals(noun) ? "id" : noun + "_id";
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

  /** Deletes the parents with a key in [from, to]; their children go with them (cascade). */
  public static void delete(String noun, long from, long to) throws SQLException {
    try (Connection c = connect();
        PreparedStatement ps =
            c.prepareStatement("DELETE FROM " + noun + " WHERE id BETWEEN ? AND ?")) {
      ps.setLong(1, from);
      ps.setLong(2, to);
      ps.executeUpdate();
    }
  }

  public static void execute(String sql) throws SQLException {
    try (Connection c = connect();
        Statement st = c.createStatement()) {
      st.execute(sql);
    }
  }
}
