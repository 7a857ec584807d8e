package dev.loomlab.database;

import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import org.eclipse.microprofile.config.Config;

/**
 * Both pools and their bounds: the JDBC pool (Agroal), its sessions' timeouts, the reactive pool.
 */
@ApplicationScoped
class DatabaseSettings implements PublishedSettings {

  private final Config config;
  private final DbConfig db;
  private final ReactiveDatabase reactiveDb;
  private final ReactiveConfig reactive;

  DatabaseSettings(
      Config config, DbConfig db, ReactiveDatabase reactiveDb, ReactiveConfig reactive) {
    this.config = config;
    this.db = db;
    this.reactiveDb = reactiveDb;
    this.reactive = reactive;
  }

  @Override
  public int order() {
    return 60;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    settings.put(
        "datasource.max-size",
        config.getOptionalValue("quarkus.datasource.jdbc.max-size", Integer.class).orElse(20));
    settings.put("db.statement-timeout-ms", db.statementTimeout().toMillis());
    settings.put("db.lock-timeout-ms", db.lockTimeout().toMillis());
    settings.put("db.idle-in-transaction-timeout-ms", db.idleInTransactionTimeout().toMillis());
    settings.put("reactive.pool-max-size", reactiveDb.maxSize());
    settings.put("reactive.pool-max-waiting", reactive.pool().maxWaiting());
    settings.put("reactive.web-client-max-connections", reactive.webClient().maxConnections());
  }
}
