package dev.loomlab.ingest;

import jakarta.enterprise.context.ApplicationScoped;
import java.io.IOException;
import java.io.StringReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.postgresql.PGConnection;
import org.postgresql.util.PGobject;

/**
 * The SQL of each table's upsert for any domain, on a connection the caller owns (and commits).
 * Prepared statements in JDBC batches of {@code loomlab.ingest.jdbc-batch-size}; every execution
 * counts as one round trip for the simulated network latency.
 */
@ApplicationScoped
public class ChunkWriter {

  private final IngestConfig config;

  ChunkWriter(IngestConfig config) {
    this.config = config;
  }

  /** Upserts the chunk into the domain's {@code table}; returns the rows written. */
  <R extends IngestRecord> int write(Connection c, Domain<R, ?> domain, Table table, List<R> chunk)
      throws SQLException, InterruptedException {
    IngestSql q = domain.sql();
    return switch (table) {
      case PARENT -> parents(c, q, domain, chunk);
      case SKILL -> skills(c, q, chunk);
      case TEXT -> texts(c, q, chunk);
      case EMBEDDING -> embeddings(c, q, chunk);
    };
  }

  private <R extends IngestRecord> int parents(
      Connection c, IngestSql q, Domain<R, ?> domain, List<R> chunk)
      throws SQLException, InterruptedException {
    try (PreparedStatement ps = c.prepareStatement(q.upsertParent())) {
      Batch batch = new Batch(ps);
      for (Object[] row : Rows.parents(domain, chunk)) {
        ps.setLong(1, (Long) row[0]);
        for (int i = 1; i < row.length; i++) {
          if (row[i] == null) {
            ps.setNull(i + 1, domain.columns().get(i - 1).jdbcType());
          } else {
            ps.setObject(i + 1, row[i]);
          }
        }
        batch.add();
      }
      return batch.finish();
    }
  }

  private int skills(Connection c, IngestSql q, List<? extends IngestRecord> chunk)
      throws SQLException, InterruptedException {
    Rows.Skills skills = Rows.skills(chunk);
    try (PreparedStatement ps = c.prepareStatement(q.replaceSkills())) {
      ps.setArray(1, c.createArrayOf("bigint", skills.ids()));
      ps.setArray(2, c.createArrayOf("text", skills.names()));
      ps.setArray(3, c.createArrayOf("smallint", skills.levels()));
      ps.setArray(4, c.createArrayOf("bigint", skills.keys()));
      int rows = ps.executeUpdate();
      roundTrip();
      return rows;
    }
  }

  private int texts(Connection c, IngestSql q, List<? extends IngestRecord> chunk)
      throws SQLException, InterruptedException {
    Long[] without = Rows.withoutText(chunk);
    if (without.length > 0) {
      try (PreparedStatement ps = c.prepareStatement(q.deleteTexts())) {
        ps.setArray(1, c.createArrayOf("bigint", without));
        ps.executeUpdate();
        roundTrip();
      }
    }
    try (PreparedStatement ps = c.prepareStatement(q.upsertText())) {
      Batch batch = new Batch(ps);
      for (Object[] row : Rows.texts(chunk)) {
        ps.setLong(1, (Long) row[0]);
        ps.setString(2, (String) row[1]);
        batch.add();
      }
      return batch.finish();
    }
  }

  private int embeddings(Connection c, IngestSql q, List<? extends IngestRecord> chunk)
      throws SQLException, InterruptedException {
    try (PreparedStatement ps = c.prepareStatement(q.upsertEmbedding())) {
      Batch batch = new Batch(ps);
      for (Object[] row : Rows.embeddings(chunk)) {
        ps.setLong(1, (Long) row[0]);
        PGobject vector = new PGobject();
        vector.setType("vector");
        vector.setValue((String) row[1]);
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
  <R extends IngestRecord> int[] copy(Connection c, Domain<R, ?> domain, List<R> chunk)
      throws SQLException, InterruptedException {
    IngestSql q = domain.sql();
    try (Statement st = c.createStatement()) {
      st.execute(q.createStages());
      roundTrip();
    }
    StringBuilder parents = new StringBuilder();
    StringBuilder skills = new StringBuilder();
    for (R r : chunk) {
      List<Object> row = new ArrayList<>();
      row.add(r.id());
      for (Column<R> column : domain.columns()) {
        row.add(column.value().apply(r));
      }
      row.add(r.text());
      row.add(r.embeddingLiteral());
      csv(parents, row);
      for (Skill s : r.skillsOrEmpty()) {
        csv(skills, Arrays.asList(r.id(), s.name(), s.level()));
      }
    }
    try {
      var copy = c.unwrap(PGConnection.class).getCopyAPI();
      copy.copyIn(q.copyParents(), new StringReader(parents.toString()));
      roundTrip();
      copy.copyIn(q.copySkills(), new StringReader(skills.toString()));
      roundTrip();
    } catch (IOException e) {
      throw new SQLException("COPY failed", e);
    }
    int[] rows = new int[Table.values().length];
    try (Statement st = c.createStatement()) {
      for (IngestSql.Merge merge : q.mergeStages()) {
        int n = st.executeUpdate(merge.sql());
        if (merge.counts() != null) {
          rows[merge.counts().ordinal()] = n;
        }
      }
      roundTrip();
    }
    return rows;
  }

  /** One CSV line; null is an unquoted empty field (COPY's NULL in CSV format). */
  private static void csv(StringBuilder sb, List<Object> values) {
    for (int i = 0; i < values.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      Object v = values.get(i);
      if (v instanceof OffsetDateTime t) {
        v = t.toInstant();
      }
      if (v != null) {
        sb.append('"').append(v.toString().replace("\"", "\"\"")).append('"');
      }
    }
    sb.append('\n');
  }

  private void roundTrip() throws InterruptedException {
    Duration rtt = config.simulatedRoundTrip();
    if (!rtt.isZero()) {
      Thread.sleep(rtt);
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
