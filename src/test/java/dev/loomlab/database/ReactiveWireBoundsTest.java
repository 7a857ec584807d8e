package dev.loomlab.database;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smallrye.config.SmallRyeConfigBuilder;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * The reactive client's bounds on the wire are the JDBC driver's (connect timeout, socket timeout,
 * keep-alive): a connection to the service's database that reads nothing for the socket timeout is
 * closed by the client, and a query on it fails rather than waits.
 */
class ReactiveWireBoundsTest {

  private static final String JDBC = "quarkus.datasource.jdbc.additional-jdbc-properties.";

  private static Config config(String socketTimeoutSeconds) {
    return new SmallRyeConfigBuilder()
        .withDefaultValue(JDBC + "connectTimeout", "5")
        .withDefaultValue(JDBC + "socketTimeout", socketTimeoutSeconds)
        .withDefaultValue(JDBC + "tcpKeepAlive", "true")
        .build();
  }

  @Test
  void theJdbcBoundsAreTheReactiveClientsToo() {
    PgConnectOptions connect = new PgConnectOptions();
    ReactivePoolProducer.wireBounds(config("60"), connect);
    assertThat(connect.getConnectTimeout(), equalTo(5_000));
    assertThat(connect.getIdleTimeout(), equalTo(60));
    assertThat(connect.getIdleTimeoutUnit(), equalTo(TimeUnit.SECONDS));
    assertThat(connect.isTcpKeepAlive(), equalTo(true));
  }

  @Test
  void aConnectionThatReadsNothingIsClosed() throws Exception {
    // The service's own database, reached as the service reaches it, with a socket timeout of 1 s.
    PgConnectOptions connect = ReactivePoolProducer.address(ConfigProvider.getConfig());
    ReactivePoolProducer.wireBounds(config("1"), connect);
    Vertx vertx = Vertx.vertx();
    try {
      CompletableFuture<Void> closed = new CompletableFuture<>();
      PgConnection connection =
          PgConnection.connect(vertx, connect)
              .toCompletionStage()
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
      connection.closeHandler(v -> closed.complete(null));
      // Nothing is sent: after 1 s without a byte read, the client closes the connection. The
      // test's own bound is wide (a busy machine).
      closed.get(60, TimeUnit.SECONDS);
      assertThrows(
          ExecutionException.class,
          () ->
              connection
                  .query("SELECT 1")
                  .execute()
                  .toCompletionStage()
                  .toCompletableFuture()
                  .get(60, TimeUnit.SECONDS));
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
