package dev.loomlab.database;

import dev.loomlab.execution.WaitBudget;
import dev.loomlab.execution.WaitBudget.Queue;
import io.agroal.api.AgroalDataSource;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import jakarta.enterprise.context.ApplicationScoped;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.inject.ConfigProperty;

/**
 * The threaded modes' way to a JDBC connection: a fair bulkhead of as many permits as connections
 * ({@code loomlab.db.bulkhead}), waited for within the request's {@link WaitBudget}, then Agroal's
 * pool. Every workload's database work goes through it, so a request waits for a connection the
 * same way whatever it does; the reactive mode's counterpart is the reactive pool's bulkhead.
 */
@ApplicationScoped
public class ConnectionPermits {

  private final AgroalDataSource dataSource;
  private final Semaphore bulkhead;

  ConnectionPermits(
      AgroalDataSource dataSource,
      DbConfig config,
      MeterRegistry registry,
      @ConfigProperty(name = "quarkus.datasource.jdbc.max-size", defaultValue = "20")
          int poolSize) {
    this.dataSource = dataSource;
    int permits = config.bulkhead().permits().orElse(poolSize);
    this.bulkhead = config.bulkhead().enabled() ? new Semaphore(permits, true) : null;
    if (bulkhead != null) {
      Gauge.builder("loomlab.db.bulkhead.waiting", bulkhead, Semaphore::getQueueLength)
          .description("Requests waiting for a database permit")
          .register(registry);
      Gauge.builder("loomlab.db.bulkhead.available", bulkhead, Semaphore::availablePermits)
          .description("Free database permits")
          .register(registry);
    }
  }

  /** Permits free now (with the bulkhead off, Agroal's idle connections): 0 while all are taken. */
  public int available() {
    return bulkhead != null
        ? bulkhead.availablePermits()
        : (int) dataSource.getMetrics().availableCount();
  }

  /** A pooled connection and its permit, both given back by {@link #close()}. */
  public static final class Lease implements AutoCloseable {
    private final Connection connection;
    private final Semaphore bulkhead;

    private Lease(Connection connection, Semaphore bulkhead) {
      this.connection = connection;
      this.bulkhead = bulkhead;
    }

    public Connection connection() {
      return connection;
    }

    @Override
    public void close() throws SQLException {
      try {
        connection.close();
      } finally {
        if (bulkhead != null) {
          bulkhead.release();
        }
      }
    }
  }

  /**
   * A connection within what is left of {@code budget}: the wait for the permit and for Agroal is
   * booked on it as the {@code permit} queue; past it, 503 {@code overloaded} naming that queue.
   * With the bulkhead off, Agroal's own acquisition timeout bounds the wait instead.
   */
  public Lease lease(WaitBudget budget) throws SQLException {
    long start = System.nanoTime();
    boolean permitted = false;
    try {
      if (bulkhead != null) {
        permitted = bulkhead.tryAcquire(budget.remainingNanos(), TimeUnit.NANOSECONDS);
        if (!permitted) {
          throw budget.exhausted(Queue.PERMIT, System.nanoTime() - start);
        }
      }
      Connection connection;
      try {
        connection = dataSource.getConnection();
      } catch (SQLException e) {
        if (DatabaseProblems.isAcquisitionTimeout(e)) {
          throw budget.exhausted(Queue.PERMIT, System.nanoTime() - start);
        }
        throw e;
      }
      budget.waited(Queue.PERMIT, System.nanoTime() - start);
      Lease lease = new Lease(connection, bulkhead);
      permitted = false;
      return lease;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new SQLException("interrupted while waiting for a database permit", e);
    } finally {
      if (permitted) {
        bulkhead.release();
      }
    }
  }

  /** Whether database work queues in the bulkhead ({@code loomlab.db.bulkhead.enabled}). */
  public boolean bulkheadEnabled() {
    return bulkhead != null;
  }
}
