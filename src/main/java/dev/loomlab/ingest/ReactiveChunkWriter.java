package dev.loomlab.ingest;

import dev.loomlab.execution.EventLoopTimer;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.SqlConnection;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Arrays;
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
      case PARENT -> batches(c, q.upsertParent(), Rows.parents(domain, chunk));
      case SKILL -> skills(c, q, chunk);
      case TEXT -> texts(c, q, chunk);
      // pgvector's type is unknown to the client: its text form is sent, as JDBC's PGobject does.
      case EMBEDDING -> batches(c, q.upsertEmbedding(), Rows.embeddings(chunk));
    };
  }

  private Uni<Integer> skills(SqlConnection c, IngestSql q, List<? extends IngestRecord> chunk) {
    Rows.Skills skills = Rows.skills(chunk);
    Tuple args =
        Tuple.tuple()
            .addArrayOfLong(skills.ids())
            .addArrayOfString(skills.names())
            .addArrayOfShort(skills.levels())
            .addArrayOfLong(skills.keys());
    return c.preparedQuery(numbered(q.replaceSkills()))
        .execute(args)
        .chain(rows -> roundTrip().replaceWith(rows.rowCount()));
  }

  private Uni<Integer> texts(SqlConnection c, IngestSql q, List<? extends IngestRecord> chunk) {
    Long[] without = Rows.withoutText(chunk);
    Uni<Void> deleted =
        without.length == 0
            ? Uni.createFrom().voidItem()
            : c.preparedQuery(numbered(q.deleteTexts()))
                .execute(Tuple.tuple().addArrayOfLong(without))
                .chain(this::roundTrip);
    return deleted.chain(() -> batches(c, q.upsertText(), Rows.texts(chunk)));
  }

  /** Batches of {@code jdbc-batch-size} rows one after another, each one round trip. */
  private Uni<Integer> batches(SqlConnection c, String sql, List<Object[]> rows) {
    Uni<Integer> written = Uni.createFrom().item(0);
    int size = config.jdbcBatchSize();
    for (int from = 0; from < rows.size(); from += size) {
      List<Tuple> batch =
          rows.subList(from, Math.min(rows.size(), from + size)).stream()
              .map(row -> Tuple.from(Arrays.asList(row)))
              .toList();
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
