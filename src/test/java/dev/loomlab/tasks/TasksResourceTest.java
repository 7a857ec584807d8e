package dev.loomlab.tasks;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.lessThan;

import io.quarkus.test.junit.QuarkusTest;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class TasksResourceTest {

  @Test
  void workerRunsTasksInWavesOfTheFixedPool() {
    // 40 tasks of 50 ms on a pool of 10: four waves, so at least 200 ms and never 40 at once.
    given()
        .queryParam("count", 40)
        .queryParam("ms", 50)
        .when()
        .get("/api/worker/tasks")
        .then()
        .statusCode(200)
        .body("mode", equalTo("worker"))
        .body("count", equalTo(40))
        .body("executor", equalTo("fixed-platform-pool(10)"))
        .body("peakConcurrentTasks", equalTo(10))
        .body("idealMs", equalTo(200))
        .body("elapsedMs", both(greaterThanOrEqualTo(200)).and(lessThan(5_000)))
        .body("peakPlatformThreads", greaterThanOrEqualTo(10));
  }

  @Test
  @ShouldNotPin
  void virtualRunsEveryTaskAtOnce() {
    // 2,000 tasks of 200 ms, one virtual thread each: one wave, far below 2,000 x 200 ms.
    given()
        .queryParam("count", 2_000)
        .queryParam("ms", 200)
        .when()
        .get("/api/virtual/tasks")
        .then()
        .statusCode(200)
        .body("mode", equalTo("virtual"))
        .body("executor", equalTo("virtual-thread-per-task"))
        .body("peakConcurrentTasks", greaterThan(1_000))
        .body("idealMs", equalTo(200))
        .body("elapsedMs", both(greaterThanOrEqualTo(200)).and(lessThan(5_000)))
        .body("heapGrowthBytes", greaterThanOrEqualTo(0))
        .body("rssGrowthBytes", greaterThanOrEqualTo(0));
  }

  @Test
  void rejectsWorkerCountOverItsBound() {
    given()
        .queryParam("count", 10_001)
        .queryParam("ms", 0)
        .when()
        .get("/api/worker/tasks")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("violations.field", hasItem("count"));
  }

  @Test
  void rejectsVirtualCountOverItsBound() {
    given()
        .queryParam("count", 1_000_001)
        .when()
        .get("/api/virtual/tasks")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", equalTo("count=1000001: must be between 1 and 1000000"));
  }

  @Test
  void rejectsAFanOutThatWouldHoldItsThreadForMinutes() {
    // 10,000 tasks x 1 s on 10 threads = 1,000 s, over max-expected-ms.
    given()
        .queryParam("count", 10_000)
        .queryParam("ms", 1_000)
        .when()
        .get("/api/worker/tasks")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("violations.field", hasItem("count"));
  }

  @Test
  void rejectsARunTheHeapCannotHoldAndSaysHowManyWould() {
    // The ITs run the packaged jar with the pods' heap (-Xmx768m): it admits fewer virtual tasks
    // than max-count-virtual; a run past that is refused before any task starts.
    long admits = pool("tasks.heap-admits-virtual");
    long maxCount = pool("tasks.max-count-virtual");
    assertThat("this JVM's heap admits fewer tasks than max-count", admits, lessThan(maxCount));
    given()
        .queryParam("count", admits + 1)
        .queryParam("ms", 1)
        .when()
        .get("/api/virtual/tasks")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("violations.field", hasItem("count"))
        .body("detail", containsString("admits at most " + admits + " virtual tasks"));
    // Nothing ran: the service answers at once and still serves.
    given().get("/q/health/live").then().statusCode(200);
  }

  @Test
  void runsALargeAdmittedRunWithoutRunningOutOfMemory() {
    // A fifth of what an empty heap admits (tens of thousands of virtual threads under the pods'
    // heap): room for the rest of the live heap, which under @QuarkusTest includes the test's own
    // and that of every test class before it (413 MB of the 768 MB, seen once).
    long count = pool("tasks.heap-admits-virtual") / 5;
    given()
        .queryParam("count", count)
        .queryParam("ms", 500)
        .when()
        .get("/api/virtual/tasks")
        .then()
        .log()
        .ifValidationFails()
        .statusCode(200)
        .body("count", equalTo((int) count));
    given().get("/q/health/live").then().statusCode(200);
  }

  @Test
  void rejectsZeroTasks() {
    given().queryParam("count", 0).when().get("/api/virtual/tasks").then().statusCode(400);
  }

  /** A figure of /api/info's pools and bounds. */
  private static long pool(String name) {
    return given().get("/api/info").then().extract().jsonPath().getLong("pools.'" + name + "'");
  }
}
