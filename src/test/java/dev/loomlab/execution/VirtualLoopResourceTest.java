package dev.loomlab.execution;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.matchesPattern;

import dev.loomlab.observability.PrometheusText;
import io.quarkus.test.junit.QuarkusTest;
import java.util.HashSet;
import java.util.Set;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The virtual-loop mode over HTTP: the same answers as the virtual mode's, from a virtual thread
 * named after the event loop that carries it, its waits metered under its own name, its carriers in
 * /api/info.
 */
@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class VirtualLoopResourceTest {

  private static final String LOOP_THREAD = "vert\\.x-eventloop-thread-\\d+-virtual-\\d+";

  @Test
  @ShouldNotPin
  void sleepAnswersAsTheVirtualModeFromAThreadOfItsEventLoop() {
    given()
        .queryParam("ms", 20)
        .get("/api/virtual-loop/sleep")
        .then()
        .statusCode(200)
        .body("mode", equalTo("virtual-loop"))
        .body("virtual", equalTo(true))
        .body("thread", matchesPattern(LOOP_THREAD))
        .body("sleptMs", equalTo(20));
  }

  @Test
  @ShouldNotPin
  void badInputIsTheSameProblemAsInTheVirtualMode() {
    for (String mode : new String[] {"virtual", "virtual-loop"}) {
      given()
          .queryParam("ms", 10_001)
          .get("/api/" + mode + "/sleep")
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("detail", equalTo("ms=10001: must be between 0 and 10000"));
    }
  }

  @Test
  @ShouldNotPin
  void aQueryWaitsInJdbcOnTheLoopsVirtualThread() {
    given()
        .queryParam("ms", 50)
        .get("/api/virtual-loop/db/slow")
        .then()
        .statusCode(200)
        .body("mode", equalTo("virtual-loop"))
        .body("clients", equalTo("blocking"))
        .body("thread", matchesPattern(LOOP_THREAD));
  }

  @Test
  void theReactiveClientsAreTheVirtualModesVariantOnly() {
    given()
        .queryParam("ms", 50)
        .queryParam("clients", "reactive")
        .get("/api/virtual-loop/db/slow")
        .then()
        .statusCode(400)
        .contentType("application/problem+json");
  }

  @Test
  @ShouldNotPin
  void itsWaitForAThreadIsMeteredUnderItsOwnName() {
    given().queryParam("ms", 0).get("/api/virtual-loop/sleep").then().statusCode(200);
    String metrics = given().get("/q/metrics").then().extract().asString();
    double waits =
        PrometheusText.sum(
            metrics,
            "loomlab_execution_wait_seconds_count",
            "mode=\"virtual-loop\"",
            "queue=\"thread\"");
    assertThat(waits, greaterThan(0.0));
  }

  @Test
  void infoCountsTheEventLoopsThatServeRequests() {
    int loops = given().get("/api/info").then().extract().path("pools.'reactive.event-loops'");
    // Each connection closed after its answer: the next is accepted by the next server's loop.
    Set<String> serving = new HashSet<>();
    for (int i = 0; i < 8 * loops; i++) {
      serving.add(
          given()
              .header("Connection", "close")
              .queryParam("ms", 0)
              .get("/api/reactive/sleep")
              .then()
              .statusCode(200)
              .extract()
              .path("thread"));
    }
    assertThat(serving, hasSize(loops));
  }

  @Test
  void infoNamesItsCarriersTheEventLoops() {
    int loops = given().get("/api/info").then().extract().path("pools.'reactive.event-loops'");
    given()
        .get("/api/info")
        .then()
        .body("pools.'virtual-loop.carriers'", equalTo(loops))
        .body("modes.sleep[2]", equalTo("virtual-loop"));
  }
}
