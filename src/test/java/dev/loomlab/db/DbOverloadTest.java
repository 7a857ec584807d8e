package dev.loomlab.db;

import static io.restassured.RestAssured.given;
import static java.time.Duration.ofMillis;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;

import dev.loomlab.observability.PrometheusText;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Far more requests than connections: each waits at most its bounded wait, then 503 with
 * Retry-After; nobody hangs, and the service serves again as soon as the flood is over.
 */
@QuarkusTest
@TestProfile(DbOverloadTest.TinyPool.class)
class DbOverloadTest {

  public static class TinyPool implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "quarkus.datasource.jdbc.max-size", "2",
          "loomlab.db.acquisition-timeout", "300ms",
          "loomlab.execution.max-wait", "300ms");
    }
  }

  @Test
  void floodOfVirtualThreadsGetsBoundedWaitsAndServiceUnavailable() throws Exception {
    OverloadProbe.assertFloodIsBounded("virtual", true);
  }

  @Test
  void floodOfWorkerThreadsGetsBoundedWaitsAndServiceUnavailable() throws Exception {
    OverloadProbe.assertFloodIsBounded("worker", true);
  }

  /**
   * Clients that give up while their queries wait or run leave every connection usable: the
   * reactive pool's own wait queue, without the bulkhead in front, lost connections so under a k6
   * flood (8 of 20 after one run of 300 users).
   */
  @Test
  void clientsGoneFromTheEventLoopLeaveEveryConnection() throws Exception {
    int gaveUp = OverloadProbe.fireAndGoAway("/api/reactive/db/slow?ms=400", 40, ofMillis(150));
    assertThat(gaveUp, greaterThan(0));
    Instant deadline = Instant.now().plusSeconds(30);
    String m = given().get("/q/metrics").then().extract().asString();
    while ((PrometheusText.value(m, "loomlab_reactive_pool_waiting") > 0
            || PrometheusText.value(m, "sql_pool_active") > 0)
        && Instant.now().isBefore(deadline)) {
      Thread.sleep(100);
      m = given().get("/q/metrics").then().extract().asString();
    }
    String pool = poolLines(m);
    assertThat(pool, PrometheusText.value(m, "loomlab_reactive_pool_waiting"), equalTo(0.0));
    assertThat(pool, PrometheusText.value(m, "sql_pool_active"), equalTo(0.0));
    // Both connections at once: a permit or connection lost would leave the second waiting 300 ms
    // and refused.
    List<OverloadProbe.Answer> answers = OverloadProbe.fire("/api/reactive/db/slow?ms=500", 2);
    assertThat(
        answers.stream().map(OverloadProbe.Answer::status).toList(), everyItem(equalTo(200)));
  }

  /** The reactive pool's and bulkhead's lines of the exposition, for a failure to show. */
  private static String poolLines(String exposition) {
    return exposition
        .lines()
        .filter(l -> l.startsWith("sql_pool") || l.startsWith("loomlab_reactive_pool"))
        .collect(Collectors.joining("\n", "reactive pool after the clients left:\n", "\n"));
  }

  /** Virtual threads awaiting the reactive pool wait in its bulkhead, as long, then 503. */
  @Test
  void floodOfVirtualThreadsAwaitingTheReactivePoolGetsBoundedWaits() throws Exception {
    OverloadProbe.assertFloodIsBounded("virtual", "&clients=reactive", true);
  }

  /** The reactive pool has the same 2 connections and waits the same 300 ms. */
  @Test
  void floodOnTheEventLoopGetsBoundedWaitsAndServiceUnavailable() throws Exception {
    OverloadProbe.assertFloodIsBounded("reactive", true);
  }
}
