package dev.loomlab.recruits;

import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Refuses to start when {@code loomlab.recruits.embedding-dimension} and the {@code vector(n)}
 * column disagree: every batch would fail otherwise, after its parent rows were written.
 */
@ApplicationScoped
public class EmbeddingColumnCheck {

  private final AgroalDataSource dataSource;
  private final RecruitsConfig config;

  EmbeddingColumnCheck(AgroalDataSource dataSource, RecruitsConfig config) {
    this.dataSource = dataSource;
    this.config = config;
  }

  void check(@Observes StartupEvent event) throws SQLException {
    try (Connection c = dataSource.getConnection();
        Statement st = c.createStatement();
        // For pgvector's type, atttypmod is the declared dimension.
        ResultSet rs =
            st.executeQuery(
                "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'recruit_skill_embedding'::regclass"
                    + " AND attname = 'embedding'")) {
      int column = rs.next() ? rs.getInt(1) : -1;
      if (column != config.embeddingDimension()) {
        throw new IllegalStateException(
            "loomlab.recruits.embedding-dimension="
                + config.embeddingDimension()
                + " but recruit_skill_embedding.embedding is vector("
                + column
                + "); change one of them (a new Flyway migration for the column)");
      }
    }
  }
}
