package dev.loomlab.recruits;

import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** Reads a recruit back with its children, in one round trip per table. */
@ApplicationScoped
public class RecruitReader {

  private final AgroalDataSource dataSource;

  RecruitReader(AgroalDataSource dataSource) {
    this.dataSource = dataSource;
  }

  public Optional<RecruitView> find(long id) throws SQLException {
    try (Connection c = dataSource.getConnection()) {
      RecruitView base;
      try (PreparedStatement ps =
          c.prepareStatement(
              """
              SELECT r.id, r.company, r.title, r.location, r.salary_min, r.salary_max, r.posted_at,
                     r.updated_at, d.body, vector_dims(e.embedding)
              FROM recruit r
              LEFT JOIN recruit_description d ON d.recruit_id = r.id
              LEFT JOIN recruit_skill_embedding e ON e.recruit_id = r.id
              WHERE r.id = ?
              """)) {
        ps.setLong(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return Optional.empty();
          }
          base =
              new RecruitView(
                  rs.getLong(1),
                  rs.getString(2),
                  rs.getString(3),
                  rs.getString(4),
                  (Integer) rs.getObject(5),
                  (Integer) rs.getObject(6),
                  rs.getObject(7, OffsetDateTime.class),
                  rs.getObject(8, OffsetDateTime.class),
                  List.of(),
                  rs.getString(9),
                  (Integer) rs.getObject(10));
        }
      }
      List<RecruitInput.Skill> skills = new ArrayList<>();
      try (PreparedStatement ps =
          c.prepareStatement(
              "SELECT skill, level FROM recruit_skill WHERE recruit_id = ? ORDER BY skill")) {
        ps.setLong(1, id);
        try (ResultSet rs = ps.executeQuery()) {
          while (rs.next()) {
            Object level = rs.getObject(2);
            skills.add(
                new RecruitInput.Skill(
                    rs.getString(1), level == null ? null : ((Number) level).intValue()));
          }
        }
      }
      return Optional.of(
          new RecruitView(
              base.id(),
              base.company(),
              base.title(),
              base.location(),
              base.salaryMin(),
              base.salaryMax(),
              base.postedAt(),
              base.updatedAt(),
              skills,
              base.description(),
              base.embeddingDimension()));
    }
  }
}
