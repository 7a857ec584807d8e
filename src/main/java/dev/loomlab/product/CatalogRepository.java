package dev.loomlab.product;

import dev.loomlab.product.ProductView.Product;
import io.agroal.api.AgroalDataSource;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/** The catalog dependency: one product row through the Agroal pool. */
@ApplicationScoped
public class CatalogRepository {

  private static final String SELECT = "SELECT id, name, category, price FROM product WHERE id = ?";
  // pg_sleep in the select list runs once for the matching row, holding the connection.
  private static final String SELECT_SLOW =
      "SELECT id, name, category, price, pg_sleep(? / 1000.0) FROM product WHERE id = ?";

  private final AgroalDataSource dataSource;

  CatalogRepository(AgroalDataSource dataSource) {
    this.dataSource = dataSource;
  }

  /**
   * The product, after {@code latencyMs} spent where configured: inside the query (connection held)
   * or after it (connection already back in the pool).
   */
  public Optional<Product> find(long id, long latencyMs, ProductConfig.LatencyIn latencyIn)
      throws SQLException, InterruptedException {
    Optional<Product> product;
    boolean inDatabase = latencyIn == ProductConfig.LatencyIn.database;
    try (Connection c = dataSource.getConnection();
        PreparedStatement ps = c.prepareStatement(inDatabase ? SELECT_SLOW : SELECT)) {
      if (inDatabase) {
        ps.setLong(1, latencyMs);
        ps.setLong(2, id);
      } else {
        ps.setLong(1, id);
      }
      try (ResultSet rs = ps.executeQuery()) {
        product =
            rs.next()
                ? Optional.of(
                    new Product(
                        rs.getLong(1), rs.getString(2), rs.getString(3), rs.getBigDecimal(4)))
                : Optional.empty();
      }
    }
    if (!inDatabase) {
      Thread.sleep(latencyMs);
    }
    return product;
  }
}
