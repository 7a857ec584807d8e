package dev.loomlab.database;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.core.Vertx;
import io.vertx.mutiny.pgclient.PgConnection;
import io.vertx.pgclient.PgConnectOptions;
import jakarta.enterprise.context.ApplicationScoped;
import java.time.Duration;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.HealthCheckResponseBuilder;
import org.eclipse.microprofile.health.Readiness;
import org.jboss.logging.Logger;

/**
 * Readiness: the database answers, asked on a connection of the check's own, outside both pools. A
 * saturated pool (twenty {@code db/slow} sleeps, a flood of chunks) is the service at work: it
 * reads as {@code busy} in the data, not as "not ready", and the pod stays in its Service. Quarkus'
 * own datasource check, which waits for a pool connection, is off.
 */
@Readiness
@ApplicationScoped
class DatabaseHealthCheck implements AsyncHealthCheck {

  private static final Logger LOG = Logger.getLogger(DatabaseHealthCheck.class);
  private static final String NAME = "database";

  private final Vertx vertx;
  private final PgConnectOptions options;
  private final Duration timeout;
  private final ReactiveDatabase reactive;
  private final ConnectionPermits permits;

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
  }

  @Override
  public Uni<HealthCheckResponse> call() {
    return PgConnection.connect(vertx, options)
        .chain(c -> c.query("SELECT 1").execute().eventually(c::close))
        .ifNoItem()
        .after(timeout)
        .fail()
        .map(rows -> details().up().build())
        .onFailure()
        .recoverWithItem(
            failure -> {
              LOG.debugf(failure, "readiness: the database did not answer");
              return details().down().withData("error", kind(failure)).build();
            });
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
    return failure instanceof io.smallrye.mutiny.TimeoutException
        ? "no answer within " + "loomlab.reactive.pool.health-timeout"
        : failure.getClass().getSimpleName();
  }
}
