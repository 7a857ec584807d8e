package dev.loomlab.db;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A database that does not answer within the JDBC socket timeout is a 503 in every mode: the JDBC
 * driver's read gives up, and the reactive client's call is bounded by the same timeout (it cannot
 * bound a read alone without closing its idle connections with it). Both then serve again.
 */
@QuarkusTest
@TestProfile(DbReadTimeoutTest.OneSecondReads.class)
class DbReadTimeoutTest {

  public static class OneSecondReads implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "quarkus.datasource.jdbc.additional-jdbc-properties.socketTimeout", "1",
          "loomlab.execution.max-wait", "500ms");
    }
  }

  @Test
  void aWorkerThreadsReadGivesUpAtTheBound() {
    assertBoundedThenServes("worker");
  }

  /**
   * Neither {@code @ShouldNotPin} nor {@code @ShouldPin}: in some runs, not all, the JDK's own read
   * sub-poller (a virtual thread in {@code sun.nio.ch.Poller.subPollerLoop}, not the request's)
   * records one pinned event while the request's timed read gives up. The request's path pins
   * nowhere: DbResourceTest.virtualHoldsAConnectionWithoutPinning holds it, without the timeout.
   */
  @Test
  void aVirtualThreadsReadGivesUpAtTheBound() {
    assertBoundedThenServes("virtual");
  }

  @Test
  void theEventLoopsCallGivesUpAtTheBound() {
    assertBoundedThenServes("reactive");
  }

  private static void assertBoundedThenServes(String mode) {
    long start = System.nanoTime();
    // pg_sleep(8 s) is far past the 1 s read bound and far below the statement timeout (30 s).
    Response slow = given().get("/api/" + mode + "/db/slow?ms=8000");
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    assertThat(mode, slow.statusCode(), equalTo(503));
    assertThat(mode, slow.contentType(), containsString("application/problem+json"));
    // Bounded by the read bound (and the wait), not by the query: well under its 8 s.
    assertThat(mode + " took " + tookMs + " ms", tookMs, lessThan(7_000L));
    assertThat(mode, given().get("/api/" + mode + "/db/slow?ms=10").statusCode(), equalTo(200));
  }
}
