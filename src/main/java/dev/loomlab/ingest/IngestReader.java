package dev.loomlab.ingest;

import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * Reads a record of any domain back with its children: two round trips in one read-only transaction
 * at REPEATABLE READ, so both see the same snapshot (a chunk committed between them cannot pair new
 * skills with an old description). The connection is the caller's, leased behind the bulkhead like
 * every other.
 */
@ApplicationScoped
public class IngestReader {

  public <V> Optional<V> find(Connection c, Domain<?, V> domain, long id) throws SQLException {
    c.setAutoCommit(false);
    c.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
    c.setReadOnly(true);
    try {
      return read(c, domain, id);
    } finally {
      c.rollback();
    }
  }

  private <V> Optional<V> read(Connection c, Domain<?, V> domain, long id) throws SQLException {
    IngestSql q = domain.sql();
    List<Skill> skills = new ArrayList<>();
    try (PreparedStatement ps = c.prepareStatement(q.selectSkills())) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        while (rs.next()) {
          Object level = rs.getObject(2);
          skills.add(
              new Skill(rs.getString(1), level == null ? null : ((Number) level).intValue()));
        }
      }
    }
    try (PreparedStatement ps = c.prepareStatement(q.selectOne())) {
      ps.setLong(1, id);
      try (ResultSet rs = ps.executeQuery()) {
        if (!rs.next()) {
          return Optional.empty();
        }
        return Optional.of(
            domain.view(
                rs,
                List.copyOf(skills),
                rs.getString("body"),
                (Integer) rs.getObject("dimension")));
      }
    }
  }
}
