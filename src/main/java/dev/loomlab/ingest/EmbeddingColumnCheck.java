package dev.loomlab.ingest;

import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.enterprise.inject.Instance;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Refuses to start when {@code loomlab.ingest.embedding-dimension} and a domain's {@code vector(n)}
 * column disagree: every batch of that domain would fail otherwise, after its parent rows were
 * written.
 */
@ApplicationScoped
public class EmbeddingColumnCheck {

  private final AgroalDataSource dataSource;
  private final IngestConfig config;
  private final Instance<Domain<?, ?>> domains;

  EmbeddingColumnCheck(
      AgroalDataSource dataSource, IngestConfig config, Instance<Domain<?, ?>> domains) {
    this.dataSource = dataSource;
    this.config = config;
    this.domains = domains;
  }

  void check(@Observes StartupEvent event) throws SQLException {
    try (Connection c = dataSource.getConnection();
        // For pgvector's type, atttypmod is the declared dimension.
        PreparedStatement ps =
            c.prepareStatement(
                "SELECT atttypmod FROM pg_attribute WHERE attrelid = ?::regclass"
                    + " AND attname = 'embedding'")) {
      for (Domain<?, ?> domain : domains) {
        String table = domain.table(Table.EMBEDDING);
        ps.setString(1, table);
        try (ResultSet rs = ps.executeQuery()) {
          int column = rs.next() ? rs.getInt(1) : -1;
          if (column != config.embeddingDimension()) {
            throw new IllegalStateException(
                "loomlab.ingest.embedding-dimension="
                    + config.embeddingDimension()
                    + " but "
                    + table
                    + ".embedding is vector("
                    + column
                    + "); change one of them (a new Flyway migration for the column)");
          }
        }
      }
    }
  }
}
