package dev.loomlab.database;

import io.smallrye.health.api.AsyncHealthCheck;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import org.eclipse.microprofile.health.HealthCheckResponse;
import org.eclipse.microprofile.health.Readiness;

/** Readiness of the reactive mode: its own pool reaches the database, without blocking a thread. */
@Readiness
@ApplicationScoped
class ReactivePoolHealthCheck implements AsyncHealthCheck {

  private static final String NAME = "reactive-pool";

  private final ReactiveDatabase database;

  ReactivePoolHealthCheck(ReactiveDatabase database) {
    this.database = database;
  }

  @Override
  public Uni<HealthCheckResponse> call() {
    return database
        .ping()
        .map(ok -> details().up().build())
        .onFailure()
        .recoverWithItem(
            failure ->
                details().down().withData("error", String.valueOf(failure.getMessage())).build());
  }

  private org.eclipse.microprofile.health.HealthCheckResponseBuilder details() {
    return HealthCheckResponse.named(NAME)
        .withData("max-size", database.maxSize())
        .withData("max-wait-ms", database.maxWait().toMillis());
  }
}
