package dev.loomlab.ingest.recruits;

import dev.loomlab.ingest.Column;
import dev.loomlab.ingest.Domain;
import dev.loomlab.ingest.Skill;
import jakarta.inject.Singleton;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Types;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * Recruits (job postings, seed D's RecruitDataProcessor) as the ingest engine sees them: table
 * {@code recruit}, its columns, and children {@code recruit_skill}, {@code recruit_description},
 * {@code recruit_skill_embedding} (Flyway V3).
 */
@Singleton
public class RecruitDomain extends Domain<RecruitInput, RecruitView> {

  RecruitDomain() {
    super(
        "recruits",
        "recruit",
        "recruit_skill",
        "recruit_description",
        "recruit_skill_embedding",
        List.of(
            new Column<>("company", "text", Types.VARCHAR, RecruitInput::company),
            new Column<>("title", "text", Types.VARCHAR, RecruitInput::title),
            new Column<>("location", "text", Types.VARCHAR, RecruitInput::location),
            new Column<>("salary_min", "integer", Types.INTEGER, RecruitInput::salaryMin),
            new Column<>("salary_max", "integer", Types.INTEGER, RecruitInput::salaryMax),
            new Column<>(
                "posted_at",
                "timestamptz",
                Types.TIMESTAMP_WITH_TIMEZONE,
                RecruitInput::postedAt)));
  }

  @Override
  protected RecruitView view(ResultSet p, List<Skill> skills, String text, Integer dimension)
      throws SQLException {
    return new RecruitView(
        p.getLong("id"),
        p.getString("company"),
        p.getString("title"),
        p.getString("location"),
        (Integer) p.getObject("salary_min"),
        (Integer) p.getObject("salary_max"),
        p.getObject("posted_at", OffsetDateTime.class),
        p.getObject("updated_at", OffsetDateTime.class),
        skills,
        text,
        dimension);
  }
}
