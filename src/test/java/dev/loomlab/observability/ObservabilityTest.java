package dev.loomlab.observability;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.hasItem;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

@QuarkusTest
class ObservabilityTest {

  @Test
  void livenessReadinessAndStartupAreUp() {
    given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    given().get("/q/health/started").then().statusCode(200).body("status", equalTo("UP"));
    given()
        .get("/q/health/ready")
        .then()
        .statusCode(200)
        .body("status", equalTo("UP"))
        .body("checks.name", hasItem("Database connections health check"));
  }

  @Test
  void metricsCarryTheEvidenceOfBothModes() {
    given().queryParam("ms", 1).get("/api/virtual/sleep").then().statusCode(200);
    given().queryParam("ms", 1).get("/api/worker/sleep").then().statusCode(200);
    String m = given().get("/q/metrics").then().statusCode(200).extract().asString();

    // HTTP timings by URI, hence by mode.
    assertThat(
        PrometheusText.value(m, "http_server_requests_seconds_count", "uri=\"/api/virtual/sleep\""),
        greaterThan(0.0));
    assertThat(
        PrometheusText.value(m, "http_server_requests_seconds_count", "uri=\"/api/worker/sleep\""),
        greaterThan(0.0));
    // The worker pool behind @Blocking (Quarkus' executor), with its configured bound.
    assertThat(
        PrometheusText.value(m, "executor_completed_tasks_total", "name=\"quarkus-worker\""),
        greaterThan(0.0));
    assertThat(
        PrometheusText.value(m, "executor_pool_max_threads", "name=\"quarkus-worker\""),
        greaterThan(0.0));
    assertThat(
        PrometheusText.has(m, "executor_queued_tasks", "name=\"quarkus-worker\""), equalTo(true));
    assertThat(
        PrometheusText.has(m, "executor_active_threads", "name=\"quarkus-worker\""), equalTo(true));
    // Virtual threads (micrometer-java21) and the carriers behind them.
    assertThat(PrometheusText.has(m, "jvm_threads_virtual_pinned_seconds_count"), equalTo(true));
    assertThat(PrometheusText.has(m, "jvm_threads_virtual_submit_failed_total"), equalTo(true));
    assertThat(PrometheusText.value(m, "jvm_threads_virtual_parallelism"), greaterThan(0.0));
    // The datasource pool.
    assertThat(PrometheusText.has(m, "agroal_awaiting_count"), equalTo(true));
    assertThat(PrometheusText.has(m, "agroal_blocking_time_max_milliseconds"), equalTo(true));
    // Process figures: CPU and RSS read from the OS.
    assertThat(PrometheusText.value(m, "process_resident_memory_bytes"), greaterThan(10e6));
    assertThat(PrometheusText.value(m, "process_cpu_time_ns_total"), greaterThan(0.0));
    assertThat(PrometheusText.value(m, "jvm_threads_live_threads"), greaterThan(0.0));
  }

  @Test
  void openApiDescribesBothModesAndTheirProblems() {
    given()
        .get("/q/openapi?format=json")
        .then()
        .statusCode(200)
        .body("paths.'/api/worker/sleep'.get.parameters.name", hasItem("ms"))
        .body(
            "paths.'/api/virtual/sleep'.get.responses.'400'.content",
            org.hamcrest.Matchers.hasKey("application/problem+json"))
        .body("paths.'/api/virtual/tasks'.get.parameters.name", hasItem("count"))
        .body("components.schemas.Problem.properties", org.hamcrest.Matchers.hasKey("violations"));
  }

  @Test
  void infoPrintsThePoolsInForce() {
    given()
        .get("/api/info")
        .then()
        .statusCode(200)
        .body("pools.'tasks.worker-pool-size'", equalTo(10))
        .body("pools.'worker.max-threads'", greaterThan(0))
        .body("cpus", greaterThan(0))
        .body("imageKind", org.hamcrest.Matchers.anyOf(equalTo("jvm"), equalTo("native")));
  }
}
