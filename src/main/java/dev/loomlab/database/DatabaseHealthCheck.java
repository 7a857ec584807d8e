package dev.loomlab.database;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgConnection;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.RowSet;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgException;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.flywaydb.core.api.MigrationVersion;
import org.jboss.logging.Logger;

/**
 * Readiness: the database answers and holds the schema this build needs ({@link
 * DbConfig#schemaVersion()}, read from Flyway's history), asked on a connection of the check's own,
 * outside both pools. The migration runs before the service, as a step of its own; a service
 * started on an older schema stays unready until it has run. A saturated pool (twenty {@code
 * db/slow} sleeps, a flood of chunks) is the service at work: it reads as {@code busy} in the data,
 * not as "not ready", and the pod stays in its Service. Quarkus' own datasource check, which waits
 * for a pool connection, is off.
 */
@Readiness
@ApplicationScoped
class DatabaseHealthCheck implements AsyncHealthCheck {

  private static final Logger LOG = Logger.getLogger(DatabaseHealthCheck.class);
  private static final String NAME = "database";
  // Flyway's history in its default table; a failed migration's row does not count.
  private static final String APPLIED =
      "SELECT version FROM flyway_schema_history WHERE success AND version IS NOT NULL";
  // PostgreSQL's undefined_table: no migration has ever run on this database.
  private static final String NO_TABLE = "42P01";

  private final Vertx vertx;
  private final PgConnectOptions options;
  private final Duration timeout;
  private final ReactiveDatabase reactive;
  private final ConnectionPermits permits;
  private final MigrationVersion needed;

  DatabaseHealthCheck(
      Vertx vertx,
      Config config,
      DbConfig db,
      ReactiveConfig reactiveConfig,
      ReactiveDatabase reactive,
      ConnectionPermits permits) {
    this.vertx = vertx;
    this.timeout = reactiveConfig.pool().healthTimeout();
    this.options =
        new PgConnectOptions(ReactivePoolProducer.connectOptions(config, db))
            .setMetricsName("sql|loomlab-readiness")
            .setCachePreparedStatements(false)
            .setConnectTimeout((int) timeout.toMillis());
    this.reactive = reactive;
    this.permits = permits;
    this.needed = MigrationVersion.fromVersion(db.schemaVersion());
  }

  @Override
  public Uni<HealthCheckResponse> call() {
    return PgConnection.connect(vertx, options)
        .chain(c -> c.query(APPLIED).execute().eventually(c::close))
        .ifNoItem()
        .after(timeout)
        .fail()
        .map(rows -> schema(applied(rows)))
        .onFailure()
        .recoverWithItem(
            failure -> {
              LOG.debugf(failure, "readiness: the database did not answer");
              return details().down().withData("error", kind(failure)).build();
            });
  }

  /**
   * The newest schema version the history records as applied, or {@link MigrationVersion#EMPTY}.
   */
  private static MigrationVersion applied(RowSet<Row> rows) {
    MigrationVersion newest = MigrationVersion.EMPTY;
    for (Row row : rows) {
      MigrationVersion v = MigrationVersion.fromVersion(row.getString(0));
      newest = v.compareTo(newest) > 0 ? v : newest;
    }
    return newest;
  }

  /** UP on the schema this build needs or a newer one (a later build's migration ran first). */
  private HealthCheckResponse schema(MigrationVersion applied) {
    HealthCheckResponseBuilder r =
        details()
            .withData("schema", applied.getVersion() == null ? "none" : applied.getVersion())
            .withData("schema-needed", needed.getVersion());
    if (applied.compareTo(needed) >= 0) {
      return r.up().build();
    }
    LOG.debugf("readiness: schema %s is older than the %s this build needs", applied, needed);
    return r.down().withData("error", "schema older than needed: run the migration first").build();
  }

  private HealthCheckResponseBuilder details() {
    int reactiveFree = reactive.available();
    int jdbcFree = permits.available();
    return HealthCheckResponse.named(NAME)
        .withData("busy", reactiveFree == 0 || jdbcFree == 0)
        .withData("jdbc-permits-free", jdbcFree)
        .withData("reactive-permits-free", reactiveFree)
        .withData("timeout-ms", timeout.toMillis());
  }

  /** What went wrong, without the driver's text (addresses, user names). */
  private static String kind(Throwable failure) {
    if (failure instanceof io.smallrye.mutiny.TimeoutException) {
      return "no answer within loomlab.reactive.pool.health-timeout";
    }
    if (failure instanceof PgException pg && NO_TABLE.equals(pg.getSqlState())) {
      return "schema not migrated (no flyway_schema_history): run the migration first";
    }
    return failure.getClass().getSimpleName();
  }
}
