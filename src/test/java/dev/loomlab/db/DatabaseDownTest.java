package dev.loomlab.db;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;

import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.TestRecords;
import io.quarkus.test.junit.QuarkusTest;
import java.io.IOException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfEnvironmentVariable;

/**
 * The database goes away and comes back: readiness DOWN and fast 503s meanwhile, then everything
 * serves again without a restart. Stops the real local database, so it runs where the lab controls
 * it ({@code ./lab test} sets LOOMLAB_DB_CONTROL to scripts/db.sh).
 */
@QuarkusTest
@EnabledIfEnvironmentVariable(named = "LOOMLAB_DB_CONTROL", matches = ".+")
class DatabaseDownTest {

  @Test
  void databaseDownIsNotReadyAndAnswers503FastThenRecovers() throws Exception {
    given().get("/api/virtual/db/slow?ms=1").then().statusCode(200);
    given().get("/api/worker/db/slow?ms=1").then().statusCode(200);
    given().get("/api/reactive/db/slow?ms=1").then().statusCode(200);
    control("stop");
    try {
      given().get("/q/health/ready").then().statusCode(503).body("status", equalTo("DOWN"));
      given().get("/q/health/live").then().statusCode(200);
      for (String mode : new String[] {"virtual", "worker", "reactive"}) {
        long t0 = System.nanoTime();
        given()
            .get("/api/" + mode + "/db/slow?ms=1")
            .then()
            .statusCode(503)
            .contentType("application/problem+json")
            .body("type", equalTo("urn:loomlab:problem:database-unavailable"))
            .header("Retry-After", "5");
        assertThat(mode, (System.nanoTime() - t0) / 1_000_000, lessThan(2_000L));
        // A chunk's write is refused the same way, in every mode and strategy that has it.
        IngestClient.RECRUITS
            .post(mode, "parallel", TestRecords.recruits(1_005_000, 2))
            .then()
            .statusCode(503)
            .contentType("application/problem+json")
            .body("type", equalTo("urn:loomlab:problem:database-unavailable"));
      }
    } finally {
      control("start");
    }
    // Recovers by itself: no restart of the service.
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    int ready = 0;
    while (System.nanoTime() < deadline && ready != 200) {
      ready = given().get("/q/health/ready").statusCode();
      Thread.sleep(200);
    }
    assertThat(ready, equalTo(200));
    given().get("/api/virtual/db/slow?ms=1").then().statusCode(200);
    given().get("/api/worker/db/slow?ms=1").then().statusCode(200);
    given().get("/api/reactive/db/slow?ms=1").then().statusCode(200);
  }

  private static void control(String action) throws IOException, InterruptedException {
    Process p =
        new ProcessBuilder("bash", System.getenv("LOOMLAB_DB_CONTROL"), action).inheritIO().start();
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException("database " + action + " failed");
    }
  }
}
