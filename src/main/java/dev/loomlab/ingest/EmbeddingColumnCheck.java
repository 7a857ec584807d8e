package dev.loomlab.ingest;

import dev.loomlab.database.ReactiveConfig;
import io.agroal.api.AgroalDataSource;
import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.infrastructure.Infrastructure;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;

/**
 * Readiness: {@code loomlab.ingest.embedding-dimension} and every domain's {@code vector(n)} column
 * agree; every batch of a domain would fail otherwise, after its parent rows were written. Asked at
 * the first readiness probe, not at start-up: the start path opens no database connection (the
 * schema is migrated before the service starts), and the column is the migration's to create. A
 * match is remembered (only a migration changes the column, and a new build brings it), and later
 * probes answer at once, on no thread of the service's; a mismatch keeps the service unready,
 * saying which column and what to change, and is asked again. The question itself runs on a worker
 * thread and is awaited at most {@code loomlab.reactive.pool.health-timeout}, as the database's own
 * check.
 */
@Readiness
@ApplicationScoped
public class EmbeddingColumnCheck implements AsyncHealthCheck {

  private static final String NAME = "embedding-columns";

  private final AgroalDataSource dataSource;
  private final IngestConfig config;
  private final Instance<Domain<?, ?>> domains;
  private final Duration timeout;
  private volatile boolean matched;

  EmbeddingColumnCheck(
      AgroalDataSource dataSource,
      IngestConfig config,
      Instance<Domain<?, ?>> domains,
      ReactiveConfig reactive) {
    this.dataSource = dataSource;
    this.config = config;
    this.domains = domains;
    this.timeout = reactive.pool().healthTimeout();
  }

  @Override
  public Uni<HealthCheckResponse> call() {
    if (matched) {
      return Uni.createFrom().item(response().up().build());
    }
    return Uni.createFrom()
        .item(this::ask)
        .runSubscriptionOn(Infrastructure.getDefaultWorkerPool())
        .ifNoItem()
        .after(timeout)
        .recoverWithItem(
            () ->
                response()
                    .down()
                    .withData("error", "no answer within loomlab.reactive.pool.health-timeout")
                    .build());
  }

  private HealthCheckResponseBuilder response() {
    return HealthCheckResponse.named(NAME)
        .withData("embedding-dimension", config.embeddingDimension());
  }

  /** The columns asked on a connection of the JDBC pool (blocking: a worker thread's). */
  private HealthCheckResponse ask() {
    try {
      String mismatch = mismatch();
      if (mismatch == null) {
        matched = true;
        return response().up().build();
      }
      return response().down().withData("error", mismatch).build();
    } catch (SQLException e) {
      return response().down().withData("error", e.getClass().getSimpleName()).build();
    }
  }

  /** The first domain whose column disagrees with the configuration, said as a fix; or null. */
  private String mismatch() throws SQLException {
    try (Connection c = dataSource.getConnection();
        // For pgvector's type, atttypmod is the declared dimension; to_regclass is null for a
        // table the migration has not created yet.
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT atttypmod FROM pg_attribute WHERE attrelid = to_regclass(?)"
                    + " AND attname = 'embedding'")) {
      for (Domain<?, ?> domain : domains) {
        String table = domain.table(Table.EMBEDDING);
        ps.setString(1, table);
        try (ResultSet rs = ps.executeQuery()) {
          if (!rs.next()) {
            return table + " has no embedding column: run the migration first";
          }
          int column = rs.getInt(1);
          if (column != config.embeddingDimension()) {
            return "loomlab.ingest.embedding-dimension="
                + config.embeddingDimension()
                + " but "
                + table
                + ".embedding is vector("
                + column
                + "); change one of them (a new Flyway migration for the column)";
          }
        }
      }
    }
    return null;
  }
}
