package dev.loomlab.ingest;

import dev.loomlab.reactive.EventLoopTimer;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The event loop's form of {@link ChunkWriter}: the same statements ({@link IngestSql}, with
 * PostgreSQL's numbered parameters), the same batches of {@code loomlab.ingest.jdbc-batch-size}
 * rows and the same simulated round trip per execution, on a connection of the reactive pool the
 * caller owns (and commits). No COPY: the Vert.x client has none.
 */
@ApplicationScoped
public class ReactiveChunkWriter {

  private final IngestConfig config;
  private final EventLoopTimer timer;
  private final Map<String, String> numbered = new ConcurrentHashMap<>();

  ReactiveChunkWriter(IngestConfig config, EventLoopTimer timer) {
    this.config = config;
    this.timer = timer;
  }

  /** Upserts the chunk into the domain's {@code table}; the rows written. */
  <R extends IngestRecord> Uni<Integer> write(
      SqlConnection c, Domain<R, ?> domain, Table table, List<R> chunk) {
    IngestSql q = domain.sql();
    return switch (table) {
      case PARENT ->
          batches(c, q.upsertParent(), chunk.stream().map(r -> parent(domain, r)).toList());
      case SKILL -> skills(c, q, chunk);
      case TEXT -> texts(c, q, chunk);
      // pgvector's type is unknown to the client: its text form is sent, as JDBC's PGobject does.
      case EMBEDDING ->
          batches(
              c,
              q.upsertEmbedding(),
              chunk.stream().map(r -> Tuple.of(r.id(), r.embeddingLiteral())).toList());
    };
  }

  private static <R extends IngestRecord> Tuple parent(Domain<R, ?> domain, R r) {
    Tuple row = Tuple.tuple().addLong(r.id());
    for (Column<R> column : domain.columns()) {
      row.addValue(column.value().apply(r));
    }
    return row;
  }

  private Uni<Integer> skills(SqlConnection c, IngestSql q, List<? extends IngestRecord> chunk) {
    List<Long> ids = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<Short> levels = new ArrayList<>();
    for (IngestRecord r : chunk) {
      for (Skill s : r.skillsOrEmpty()) {
        ids.add(r.id());
        names.add(s.name());
        levels.add(s.level() == null ? null : s.level().shortValue());
      }
    }
    Tuple args =
        Tuple.tuple()
            .addArrayOfLong(ids.toArray(Long[]::new))
            .addArrayOfString(names.toArray(String[]::new))
            .addArrayOfShort(levels.toArray(Short[]::new))
            .addArrayOfLong(keys(chunk));
    return c.preparedQuery(numbered(q.replaceSkills()))
        .execute(args)
        .chain(rows -> roundTrip().replaceWith(rows.rowCount()));
  }

  private Uni<Integer> texts(SqlConnection c, IngestSql q, List<? extends IngestRecord> chunk) {
    List<? extends IngestRecord> without = chunk.stream().filter(r -> r.text() == null).toList();
    Uni<Void> deleted =
        without.isEmpty()
            ? Uni.createFrom().voidItem()
            : c.preparedQuery(numbered(q.deleteTexts()))
                .execute(Tuple.tuple().addArrayOfLong(keys(without)))
                .chain(this::roundTrip);
    List<Tuple> rows =
        chunk.stream().filter(r -> r.text() != null).map(r -> Tuple.of(r.id(), r.text())).toList();
    return deleted.chain(() -> batches(c, q.upsertText(), rows));
  }

  /** Batches of {@code jdbc-batch-size} rows one after another, each one round trip. */
  private Uni<Integer> batches(SqlConnection c, String sql, List<Tuple> rows) {
    Uni<Integer> written = Uni.createFrom().item(0);
    int size = config.jdbcBatchSize();
    for (int from = 0; from < rows.size(); from += size) {
      List<Tuple> batch = rows.subList(from, Math.min(rows.size(), from + size));
      written =
          written.chain(
              n ->
                  c.preparedQuery(numbered(sql))
                      .executeBatch(batch)
                      .chain(this::roundTrip)
                      .replaceWith(n + batch.size()));
    }
    return written;
  }

  private Uni<Void> roundTrip() {
    return timer.after(config.simulatedRoundTrip().toMillis(), () -> null).replaceWithVoid();
  }

  private static Long[] keys(List<? extends IngestRecord> records) {
    return records.stream().map(IngestRecord::id).toArray(Long[]::new);
  }

  /** JDBC's {@code ?} placeholders as PostgreSQL's {@code $1, $2, ...}, converted once each. */
  private String numbered(String sql) {
    return numbered.computeIfAbsent(sql, ReactiveChunkWriter::number);
  }

  static String number(String sql) {
    StringBuilder out = new StringBuilder(sql.length() + 8);
    int n = 0;
    for (int i = 0; i < sql.length(); i++) {
      char ch = sql.charAt(i);
      if (ch == '?') {
        out.append('$').append(++n);
      } else {
        out.append(ch);
      }
    }
    return out.toString();
  }
}
