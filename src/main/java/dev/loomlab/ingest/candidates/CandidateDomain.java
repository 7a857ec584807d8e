package dev.loomlab.ingest.candidates;

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
 * Candidates as the ingest engine sees them: table {@code candidate}, its columns, and children
 * {@code candidate_skill}, {@code candidate_description} (the profile) and {@code
 * candidate_skills_embedding}, the seed's names (Flyway V4).
 */
@Singleton
public class CandidateDomain extends Domain<CandidateInput, CandidateView> {

  CandidateDomain() {
    super(
        "candidates",
        "candidate",
        "candidate_skill",
        "candidate_description",
        "candidate_skills_embedding",
        List.of(
            new Column<>("name", "text", Types.VARCHAR, CandidateInput::name),
            new Column<>("headline", "text", Types.VARCHAR, CandidateInput::headline),
            new Column<>("location", "text", Types.VARCHAR, CandidateInput::location),
            new Column<>(
                "years_of_experience", "integer", Types.INTEGER, CandidateInput::yearsOfExperience),
            new Column<>(
                "desired_salary", "integer", Types.INTEGER, CandidateInput::desiredSalary)));
  }

  @Override
  protected CandidateView view(ResultSet p, List<Skill> skills, String text, Integer dimension)
      throws SQLException {
    return new CandidateView(
        p.getLong("id"),
        p.getString("name"),
        p.getString("headline"),
        p.getString("location"),
        (Integer) p.getObject("years_of_experience"),
        (Integer) p.getObject("desired_salary"),
        p.getObject("updated_at", OffsetDateTime.class),
        skills,
        text,
        dimension);
  }
}
