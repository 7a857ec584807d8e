package dev.loomlab.db;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every connection of the JDBC pool held by long queries is the service at work, not a service that
 * is not ready: readiness asks the database on a connection of its own and says "busy".
 */
@QuarkusTest
@TestProfile(ReadinessUnderLoadTest.TwoConnections.class)
class ReadinessUnderLoadTest {

  public static class TwoConnections implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("quarkus.datasource.jdbc.max-size", "2");
    }
  }

  @Test
  void saturatedPoolReadsAsBusyNotAsNotReady() throws Exception {
    // Ready before (and every class of the asking loaded), then two sleeps hold both connections
    // for 6 s while readiness is asked.
    given().get("/q/health/ready").then().statusCode(200);
    CompletableFuture<List<OverloadProbe.Answer>> flood =
        CompletableFuture.supplyAsync(
            () -> {
              try {
                return OverloadProbe.fire("/api/worker/db/slow?ms=6000", 2);
              } catch (Exception e) {
                throw new IllegalStateException(e);
              }
            });
    Response ready = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    int asked = 0;
    long began = System.nanoTime();
    while (System.nanoTime() < deadline && !flood.isDone()) {
      ready = given().get("/q/health/ready");
      asked++;
      if (Boolean.TRUE.equals(ready.path("checks.find { it.name == 'database' }.data.busy"))) {
        break;
      }
    }
    assertThat(
        "readiness saw the pool busy: "
            + (ready == null ? "-" : ready.asString())
            + (flood.isDone() ? " after the flood answered " + flood.join() : "")
            + "; asked "
            + asked
            + " times in "
            + (System.nanoTime() - began) / 1_000_000
            + " ms",
        ready != null
            && Boolean.TRUE.equals(ready.path("checks.find { it.name == 'database' }.data.busy")),
        equalTo(true));
    assertThat(ready.asString(), ready.statusCode(), equalTo(200));
    assertThat(ready.asString(), ready.path("status"), equalTo("UP"));
    assertThat(
        flood.get(60, TimeUnit.SECONDS).stream().map(OverloadProbe.Answer::status).toList(),
        equalTo(List.of(200, 200)));
  }
}
