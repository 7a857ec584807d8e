package dev.loomlab.product;

import dev.loomlab.database.ConnectionPermits;
import dev.loomlab.database.ReactiveDatabase;
import dev.loomlab.execution.EventLoopTimer;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.product.ProductView.Product;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowIterator;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

/**
 * The catalog dependency: one product row through the Agroal pool or the reactive pool, each
 * connection waited for within the request's budget.
 */
@ApplicationScoped
public class CatalogRepository {

  private static final String SELECT = "SELECT id, name, category, price FROM product WHERE id = ?";
  // pg_sleep in the select list runs once for the matching row, holding the connection.
  private static final String SELECT_SLOW =
      "SELECT id, name, category, price, pg_sleep(? / 1000.0) FROM product WHERE id = ?";

  private static final String SELECT_REACTIVE =
      "SELECT id, name, category, price FROM product WHERE id = $1";
  private static final String SELECT_SLOW_REACTIVE =
      "SELECT id, name, category, price, pg_sleep($1::bigint / 1000.0) FROM product WHERE id = $2";

  private final ConnectionPermits permits;
  private final ReactiveDatabase reactive;
  private final EventLoopTimer timer;

  CatalogRepository(ConnectionPermits permits, ReactiveDatabase reactive, EventLoopTimer timer) {
    this.permits = permits;
    this.reactive = reactive;
    this.timer = timer;
  }

  /**
   * The product, after {@code latencyMs} spent where configured: inside the query (connection held)
   * or after it (connection already back in the pool).
   */
  public Optional<Product> find(
      WaitBudget budget, long id, long latencyMs, ProductConfig.LatencyIn latencyIn)
      throws SQLException, InterruptedException {
    Optional<Product> product;
    boolean inDatabase = latencyIn == ProductConfig.LatencyIn.database;
    try (ConnectionPermits.Lease lease = permits.lease(budget);
        PreparedStatement ps =
            lease.connection().prepareStatement(inDatabase ? SELECT_SLOW : SELECT)) {
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

  /** The reactive form of {@link #find}: the same row and latency, through the reactive pool. */
  public Uni<Optional<Product>> findOnEventLoop(
      WaitBudget budget, long id, long latencyMs, ProductConfig.LatencyIn latencyIn) {
    boolean inDatabase = latencyIn == ProductConfig.LatencyIn.database;
    Uni<Optional<Product>> row =
        reactive.withConnection(
            budget,
            connection ->
                connection
                    .preparedQuery(inDatabase ? SELECT_SLOW_REACTIVE : SELECT_REACTIVE)
                    .execute(inDatabase ? Tuple.of(latencyMs, id) : Tuple.of(id))
                    .map(CatalogRepository::firstProduct));
    return inDatabase ? row : row.chain(product -> timer.after(latencyMs, () -> product));
  }

  private static Optional<Product> firstProduct(RowSet<Row> rows) {
    RowIterator<Row> it = rows.iterator();
    if (!it.hasNext()) {
      return Optional.empty();
    }
    Row r = it.next();
    return Optional.of(
        new Product(r.getLong(0), r.getString(1), r.getString(2), r.getBigDecimal(3)));
  }
}
