package dev.loomlab.ingest;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads a record of any domain back with its children: two round trips. */
@ApplicationScoped
public class IngestReader {

  private final AgroalDataSource dataSource;

  IngestReader(AgroalDataSource dataSource) {
    this.dataSource = dataSource;
  }

  public <V> Optional<V> find(Domain<?, V> domain, long id) throws SQLException {
    IngestSql q = domain.sql();
    try (Connection c = dataSource.getConnection()) {
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
}
