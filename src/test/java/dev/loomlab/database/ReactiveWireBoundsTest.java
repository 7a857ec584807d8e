package dev.loomlab.database;

import static java.time.Duration.ofSeconds;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.smallrye.config.SmallRyeConfigBuilder;
import io.vertx.core.Vertx;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.eclipse.microprofile.config.Config;
import org.eclipse.microprofile.config.ConfigProvider;
import org.junit.jupiter.api.Test;

/**
 * The reactive client's bounds on the wire are the JDBC driver's (connect timeout, keep-alive, the
 * socket timeout as each call's read bound: DbReadTimeoutTest), and its idle connections live as
 * long as the JDBC pool's: a connection to the service's database that merely idles past the socket
 * timeout stays open and answers.
 */
class ReactiveWireBoundsTest {

  private static final String JDBC = "quarkus.datasource.jdbc.additional-jdbc-properties.";

  private static Config config(String socketTimeoutSeconds, String... more) {
    SmallRyeConfigBuilder builder =
        new SmallRyeConfigBuilder()
            .withDefaultValue(JDBC + "connectTimeout", "5")
            .withDefaultValue(JDBC + "socketTimeout", socketTimeoutSeconds)
            .withDefaultValue(JDBC + "tcpKeepAlive", "true");
    for (int i = 0; i < more.length; i += 2) {
      builder.withDefaultValue(more[i], more[i + 1]);
    }
    return builder.build();
  }

  @Test
  void theJdbcBoundsAreTheReactiveClientsToo() {
    PgConnectOptions connect = new PgConnectOptions();
    ReactivePoolProducer.wireBounds(config("60"), connect);
    assertThat(connect.getConnectTimeout(), equalTo(5_000));
    assertThat(connect.isTcpKeepAlive(), equalTo(true));
    assertThat(ReactivePoolProducer.readTimeout(config("60")), equalTo(Optional.of(ofSeconds(60))));
    assertThat(ReactivePoolProducer.readTimeout(config("0")), equalTo(Optional.empty()));
    // Idle: as long as Agroal keeps an idle connection, by default and as configured.
    assertThat(connect.getIdleTimeout(), equalTo(300));
    assertThat(connect.getIdleTimeoutUnit(), equalTo(TimeUnit.SECONDS));
    PgConnectOptions configured = new PgConnectOptions();
    ReactivePoolProducer.wireBounds(
        config("60", ReactivePoolProducer.IDLE_REMOVAL, "2M"), configured);
    assertThat(configured.getIdleTimeout(), equalTo(120));
  }

  @Test
  void aConnectionIdlePastTheSocketTimeoutStaysOpenAndAnswers() throws Exception {
    // The service's own database, reached as the service reaches it, with a socket timeout of 1 s
    // (which, before, closed any connection silent for 1 s: an idle pooled one too).
    PgConnectOptions connect = ReactivePoolProducer.address(ConfigProvider.getConfig());
    ReactivePoolProducer.wireBounds(config("1"), connect);
    Vertx vertx = Vertx.vertx();
    try {
      AtomicBoolean closed = new AtomicBoolean();
      PgConnection connection =
          PgConnection.connect(vertx, connect)
              .toCompletionStage()
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS);
      connection.closeHandler(v -> closed.set(true));
      // Three times the socket timeout with nothing sent: a pause, not a dead peer.
      Thread.sleep(3_000);
      assertThat(closed.get(), equalTo(false));
      int one =
          connection
              .query("SELECT 1")
              .execute()
              .toCompletionStage()
              .toCompletableFuture()
              .get(60, TimeUnit.SECONDS)
              .iterator()
              .next()
              .getInteger(0);
      assertThat(one, equalTo(1));
      connection.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    } finally {
      vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
  }
}
