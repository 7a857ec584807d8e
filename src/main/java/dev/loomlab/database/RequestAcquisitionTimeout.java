package dev.loomlab.database;

import io.agroal.api.AgroalDataSource;
import io.quarkus.runtime.StartupEvent;
import jakarta.annotation.Priority;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.interceptor.Interceptor;
import org.jboss.logging.Logger;

/**
 * Switches the pool to the requests' acquisition timeout ({@code loomlab.db.acquisition-timeout})
 * once start-up is over. Agroal reads the timeout on every acquisition and allows changing it at
 * run time; Flyway's migration, where it runs at start (a plain {@code java -jar}, the tests), ran
 * with {@code quarkus.datasource.jdbc.acquisition-timeout} before this observer (the last of
 * start-up).
 */
@ApplicationScoped
class RequestAcquisitionTimeout {

  private static final Logger LOG = Logger.getLogger(RequestAcquisitionTimeout.class);

  void apply(
      @Observes @Priority(Interceptor.Priority.PLATFORM_AFTER + 1000) StartupEvent started,
      AgroalDataSource dataSource,
      DbConfig config) {
    config
        .acquisitionTimeout()
        .ifPresent(
            timeout -> {
              var pool = dataSource.getConfiguration().connectionPoolConfiguration();
              LOG.infof(
                  "pool acquisition timeout: %d ms at start-up, %d ms for requests",
                  pool.acquisitionTimeout().toMillis(), timeout.toMillis());
              pool.setAcquisitionTimeout(timeout);
            });
  }
}
