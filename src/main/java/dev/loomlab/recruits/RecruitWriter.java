package dev.loomlab.recruits;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.util.PGobject;

/**
 * The SQL of each table's upsert, on a connection the caller owns (and commits). Prepared
 * statements in JDBC batches of {@code loomlab.recruits.jdbc-batch-size}; every execution counts as
 * one round trip for the simulated network latency.
 */
@ApplicationScoped
public class RecruitWriter {

  private static final String UPSERT_RECRUIT =
      """
      INSERT INTO recruit (id, company, title, location, salary_min, salary_max, posted_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, now())
      ON CONFLICT (id) DO UPDATE SET company = EXCLUDED.company, title = EXCLUDED.title,
        location = EXCLUDED.location, salary_min = EXCLUDED.salary_min,
        salary_max = EXCLUDED.salary_max, posted_at = EXCLUDED.posted_at, updated_at = now()
      """;
  // A recruit's skills become exactly the chunk's, in one statement (one round trip): delete the
  // skills the chunk no longer names, upsert the ones it does. The two parts touch disjoint rows,
  // as data-modifying CTEs must.
  private static final String REPLACE_SKILLS =
      """
      WITH input (recruit_id, skill, level) AS (
        SELECT * FROM unnest(?::bigint[], ?::text[], ?::smallint[])
      ), gone AS (
        DELETE FROM recruit_skill s WHERE s.recruit_id = ANY (?::bigint[])
          AND NOT EXISTS (
            SELECT 1 FROM input i WHERE i.recruit_id = s.recruit_id AND i.skill = s.skill)
      )
      INSERT INTO recruit_skill (recruit_id, skill, level)
      SELECT recruit_id, skill, level FROM input
      ON CONFLICT (recruit_id, skill) DO UPDATE SET level = EXCLUDED.level
      """;
  private static final String UPSERT_DESCRIPTION =
      "INSERT INTO recruit_description (recruit_id, body) VALUES (?, ?)"
          + " ON CONFLICT (recruit_id) DO UPDATE SET body = EXCLUDED.body";
  // No description in the chunk means none stored: the chunk is the truth.
  private static final String DELETE_DESCRIPTIONS =
      "DELETE FROM recruit_description WHERE recruit_id = ANY (?)";
  private static final String UPSERT_EMBEDDING =
      "INSERT INTO recruit_skill_embedding (recruit_id, embedding) VALUES (?, ?)"
          + " ON CONFLICT (recruit_id) DO UPDATE SET embedding = EXCLUDED.embedding";

  private final RecruitsConfig config;

  RecruitWriter(RecruitsConfig config) {
    this.config = config;
  }

  /** Upserts the chunk into {@code table}; returns the rows written. */
  int write(Connection c, Table table, List<RecruitInput> chunk)
      throws SQLException, InterruptedException {
    return switch (table) {
      case RECRUIT -> recruits(c, chunk);
      case SKILL -> skills(c, chunk);
      case DESCRIPTION -> descriptions(c, chunk);
      case EMBEDDING -> embeddings(c, chunk);
    };
  }

  private int recruits(Connection c, List<RecruitInput> chunk)
      throws SQLException, InterruptedException {
    try (PreparedStatement ps = c.prepareStatement(UPSERT_RECRUIT)) {
      Batch batch = new Batch(ps);
      for (RecruitInput r : chunk) {
        ps.setLong(1, r.id());
        ps.setString(2, r.company());
        ps.setString(3, r.title());
        ps.setString(4, r.location());
        setInt(ps, 5, r.salaryMin());
        setInt(ps, 6, r.salaryMax());
        if (r.postedAt() == null) {
          ps.setNull(7, Types.TIMESTAMP_WITH_TIMEZONE);
        } else {
          ps.setObject(7, r.postedAt());
        }
        batch.add();
      }
      return batch.finish();
    }
  }

  private int skills(Connection c, List<RecruitInput> chunk)
      throws SQLException, InterruptedException {
    List<Object> ids = new ArrayList<>();
    List<Object> names = new ArrayList<>();
    List<Object> levels = new ArrayList<>();
    for (RecruitInput r : chunk) {
      for (RecruitInput.Skill s : r.skillsOrEmpty()) {
        ids.add(r.id());
        names.add(s.name());
        levels.add(s.level() == null ? null : s.level().shortValue());
      }
    }
    try (PreparedStatement ps = c.prepareStatement(REPLACE_SKILLS)) {
      ps.setArray(1, c.createArrayOf("bigint", ids.toArray()));
      ps.setArray(2, c.createArrayOf("text", names.toArray()));
      ps.setArray(3, c.createArrayOf("smallint", levels.toArray()));
      ps.setArray(4, c.createArrayOf("bigint", chunk.stream().map(RecruitInput::id).toArray()));
      int rows = ps.executeUpdate();
      roundTrip();
      return rows;
    }
  }

  private int descriptions(Connection c, List<RecruitInput> chunk)
      throws SQLException, InterruptedException {
    List<RecruitInput> without = chunk.stream().filter(r -> r.description() == null).toList();
    if (!without.isEmpty()) {
      deleteFor(c, DELETE_DESCRIPTIONS, without);
    }
    try (PreparedStatement ps = c.prepareStatement(UPSERT_DESCRIPTION)) {
      Batch batch = new Batch(ps);
      for (RecruitInput r : chunk) {
        if (r.description() != null) {
          ps.setLong(1, r.id());
          ps.setString(2, r.description());
          batch.add();
        }
      }
      return batch.finish();
    }
  }

  private int embeddings(Connection c, List<RecruitInput> chunk)
      throws SQLException, InterruptedException {
    try (PreparedStatement ps = c.prepareStatement(UPSERT_EMBEDDING)) {
      Batch batch = new Batch(ps);
      for (RecruitInput r : chunk) {
        ps.setLong(1, r.id());
        PGobject vector = new PGobject();
        vector.setType("vector");
        vector.setValue(r.embeddingLiteral());
        ps.setObject(2, vector);
        batch.add();
      }
      return batch.finish();
    }
  }

  /**
   * The anchor: COPY the chunk into temporary tables, then one set-based upsert per table, in the
   * caller's transaction. Returns the rows written per table, in {@link Table} order.
   */
  int[] copy(Connection c, List<RecruitInput> chunk) throws SQLException, InterruptedException {
    try (Statement st = c.createStatement()) {
      st.execute(
          """
          CREATE TEMP TABLE IF NOT EXISTS stage_recruit (id bigint, company text, title text,
            location text, salary_min integer, salary_max integer, posted_at timestamptz,
            description text, embedding vector) ON COMMIT DELETE ROWS;
          CREATE TEMP TABLE IF NOT EXISTS stage_skill (recruit_id bigint, skill text, level smallint)
            ON COMMIT DELETE ROWS
          """);
      roundTrip();
    }
    StringBuilder recruits = new StringBuilder();
    StringBuilder skills = new StringBuilder();
    for (RecruitInput r : chunk) {
      csv(
          recruits,
          r.id(),
          r.company(),
          r.title(),
          r.location(),
          r.salaryMin(),
          r.salaryMax(),
          r.postedAt() == null ? null : r.postedAt().toInstant(),
          r.description(),
          r.embeddingLiteral());
      for (RecruitInput.Skill s : r.skillsOrEmpty()) {
        csv(skills, r.id(), s.name(), s.level());
      }
    }
    try {
      var copy = c.unwrap(PGConnection.class).getCopyAPI();
      copy.copyIn(
          "COPY stage_recruit FROM STDIN (FORMAT csv)", new StringReader(recruits.toString()));
      roundTrip();
      copy.copyIn("COPY stage_skill FROM STDIN (FORMAT csv)", new StringReader(skills.toString()));
      roundTrip();
    } catch (IOException e) {
      throw new SQLException("COPY failed", e);
    }
    int[] rows = new int[4];
    try (Statement st = c.createStatement()) {
      rows[0] =
          st.executeUpdate(
              """
          INSERT INTO recruit (id, company, title, location, salary_min, salary_max, posted_at, updated_at)
          SELECT id, company, title, location, salary_min, salary_max, posted_at, now() FROM stage_recruit
          ON CONFLICT (id) DO UPDATE SET company = EXCLUDED.company, title = EXCLUDED.title,
            location = EXCLUDED.location, salary_min = EXCLUDED.salary_min,
            salary_max = EXCLUDED.salary_max, posted_at = EXCLUDED.posted_at, updated_at = now()
          """);
      st.executeUpdate(
          "DELETE FROM recruit_skill WHERE recruit_id IN (SELECT id FROM stage_recruit)");
      rows[1] =
          st.executeUpdate(
              "INSERT INTO recruit_skill SELECT recruit_id, skill, level FROM stage_skill");
      st.executeUpdate(
          "DELETE FROM recruit_description WHERE recruit_id IN (SELECT id FROM stage_recruit WHERE description IS NULL)");
      rows[2] =
          st.executeUpdate(
              """
          INSERT INTO recruit_description (recruit_id, body)
          SELECT id, description FROM stage_recruit WHERE description IS NOT NULL
          ON CONFLICT (recruit_id) DO UPDATE SET body = EXCLUDED.body
          """);
      rows[3] =
          st.executeUpdate(
              """
          INSERT INTO recruit_skill_embedding (recruit_id, embedding)
          SELECT id, embedding FROM stage_recruit
          ON CONFLICT (recruit_id) DO UPDATE SET embedding = EXCLUDED.embedding
          """);
      roundTrip();
    }
    return rows;
  }

  private void deleteFor(Connection c, String sql, List<RecruitInput> chunk)
      throws SQLException, InterruptedException {
    try (PreparedStatement ps = c.prepareStatement(sql)) {
      ps.setArray(1, c.createArrayOf("bigint", chunk.stream().map(RecruitInput::id).toArray()));
      ps.executeUpdate();
      roundTrip();
    }
  }

  private static void setInt(PreparedStatement ps, int index, Integer value) throws SQLException {
    if (value == null) {
      ps.setNull(index, Types.INTEGER);
    } else {
      ps.setInt(index, value);
    }
  }

  private static void csv(StringBuilder sb, Object... values) {
    for (int i = 0; i < values.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      Object v = values[i];
      if (v != null) {
        sb.append('"').append(v.toString().replace("\"", "\"\"")).append('"');
      }
    }
    sb.append('\n');
  }

  private void roundTrip() throws InterruptedException {
    long nanos = config.simulatedRoundTrip().toNanos();
    if (nanos > 0) {
      Thread.sleep(java.time.Duration.ofNanos(nanos));
    }
  }

  /** A JDBC batch flushed every {@code jdbc-batch-size} rows, each flush one round trip. */
  private final class Batch {
    private final PreparedStatement ps;
    private int pending;
    private int rows;

    Batch(PreparedStatement ps) {
      this.ps = ps;
    }

    void add() throws SQLException, InterruptedException {
      ps.addBatch();
      if (++pending >= config.jdbcBatchSize()) {
        flush();
      }
    }

    int finish() throws SQLException, InterruptedException {
      flush();
      return rows;
    }

    private void flush() throws SQLException, InterruptedException {
      if (pending == 0) {
        return;
      }
      ps.executeBatch();
      rows += pending;
      pending = 0;
      roundTrip();
    }
  }
}
