package dev.loomlab.sleep;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.junit.QuarkusTest;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class SleepResourceTest {

  @Test
  void workerSleepsOnAWorkerPoolPlatformThread() {
    given()
        .queryParam("ms", 20)
        .when()
        .get("/api/worker/sleep")
        .then()
        .statusCode(200)
        .contentType("application/json")
        .body("mode", equalTo("worker"))
        .body("virtual", equalTo(false))
        .body("thread", startsWith("executor-thread-"))
        .body("sleptMs", equalTo(20));
  }

  @Test
  @ShouldNotPin
  void virtualSleepsOnAVirtualThreadWithoutPinning() {
    given()
        .queryParam("ms", 20)
        .when()
        .get("/api/virtual/sleep")
        .then()
        .statusCode(200)
        .body("mode", equalTo("virtual"))
        .body("virtual", equalTo(true))
        .body("sleptMs", equalTo(20));
  }

  @Test
  void reactiveWaitsOnAnEventLoopTimer() {
    given()
        .queryParam("ms", 20)
        .when()
        .get("/api/reactive/sleep")
        .then()
        .statusCode(200)
        .body("mode", equalTo("reactive"))
        .body("virtual", equalTo(false))
        .body("thread", startsWith("vert.x-eventloop-thread-"))
        .body("sleptMs", equalTo(20));
  }

  @Test
  void reactiveRejectsSleepOverTheBoundLikeTheOtherModes() {
    given()
        .queryParam("ms", 10_001)
        .get("/api/reactive/sleep")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", equalTo("ms=10001: must be between 0 and 10000"));
  }

  @Test
  @ShouldNotPin
  void sleepDefaultsToOneHundredMilliseconds() {
    long start = System.nanoTime();
    given().when().get("/api/virtual/sleep").then().statusCode(200).body("sleptMs", equalTo(100));
    long tookMs = (System.nanoTime() - start) / 1_000_000;
    org.junit.jupiter.api.Assertions.assertTrue(tookMs >= 100, "answered after " + tookMs + " ms");
  }

  @Test
  void rejectsNegativeSleepAsProblem() {
    given()
        .queryParam("ms", -1)
        .when()
        .get("/api/worker/sleep")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("status", equalTo(400))
        .body("title", equalTo("Invalid input"))
        .body("type", equalTo("urn:loomlab:problem:invalid-input"))
        .body("violations.field", hasItem("ms"));
  }

  @Test
  void rejectsSleepOverTheConfiguredBoundWithoutSleeping() {
    long start = System.nanoTime();
    given()
        .queryParam("ms", 10_001)
        .when()
        .get("/api/virtual/sleep")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", equalTo("ms=10001: must be between 0 and 10000"));
    org.junit.jupiter.api.Assertions.assertTrue((System.nanoTime() - start) / 1_000_000 < 5_000);
  }

  @Test
  void rejectsNonNumericSleepAsBadRequest() {
    given()
        .queryParam("ms", "abc")
        .when()
        .get("/api/virtual/sleep")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("status", equalTo(400))
        .body("detail", startsWith("a parameter could not be read"));
  }

  @Test
  void unknownModeIsAProblemNamingTheModes() {
    given()
        .when()
        .get("/api/turbo/sleep")
        .then()
        .statusCode(404)
        .contentType("application/problem+json")
        .body(
            "detail",
            equalTo("unknown mode 'turbo': use one of [worker, virtual, virtual-loop, reactive]"))
        .body("instance", equalTo("/api/turbo/sleep"));
  }

  @Test
  void sleepIsTimedPerModeInMetrics() {
    given().queryParam("ms", 1).get("/api/worker/sleep").then().statusCode(200);
    given().queryParam("ms", 1).get("/api/virtual/sleep").then().statusCode(200);
    given().queryParam("ms", 1).get("/api/reactive/sleep").then().statusCode(200);
    String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
    for (String mode : new String[] {"worker", "virtual", "reactive"}) {
      double count =
          dev.loomlab.observability.PrometheusText.value(
              metrics,
              "loomlab_workload_seconds_count",
              "mode=\"" + mode + "\"",
              "workload=\"sleep\"");
      org.hamcrest.MatcherAssert.assertThat(mode, count, greaterThanOrEqualTo(1.0));
    }
  }
}
