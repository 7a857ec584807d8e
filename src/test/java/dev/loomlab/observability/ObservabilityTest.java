package dev.loomlab.observability;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;

import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.junit.jupiter.api.Test;

@QuarkusTest
class ObservabilityTest {

  private static final List<String> MODES = List.of("worker", "virtual");

  @Test
  void livenessReadinessAndStartupAreUp() {
    given().get("/q/health/live").then().statusCode(200).body("status", equalTo("UP"));
    given().get("/q/health/started").then().statusCode(200).body("status", equalTo("UP"));
    given()
        .get("/q/health/ready")
        .then()
        .statusCode(200)
        .body("status", equalTo("UP"))
        .body("checks.name", hasItem("database"))
        .body("checks.find { it.name == 'database' }.data.schema", equalTo("5"));
  }

  @Test
  void metricsCarryTheEvidenceOfBothModes() throws InterruptedException {
    given().queryParam("ms", 1).get("/api/virtual/sleep").then().statusCode(200);
    given().queryParam("ms", 1).get("/api/worker/sleep").then().statusCode(200);
    String m =
        metricsShowing(
            t -> MODES.stream().allMatch(mode -> count(t, "/api/" + mode + "/sleep") > 0));

    // HTTP timings by URI, hence by mode.
    for (String mode : MODES) {
      assertThat(mode, count(m, "/api/" + mode + "/sleep"), greaterThan(0.0));
    }
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
  void serverEvidenceMovesUnderLoad() throws Exception {
    String before = metrics();
    List<Future<?>> calls = new ArrayList<>();
    try (ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
      for (int i = 0; i < 10; i++) {
        for (String mode : MODES) {
          calls.add(
              clients.submit(
                  () -> given().get("/api/" + mode + "/db/slow?ms=50").then().statusCode(200)));
          calls.add(
              clients.submit(
                  () -> given().get("/api/" + mode + "/sleep?ms=20").then().statusCode(200)));
        }
      }
    }
    for (Future<?> call : calls) {
      call.get(); // a failed call fails the test here, with its own message
    }
    String after =
        metricsShowing(
            t ->
                MODES.stream()
                    .allMatch(mode -> slowCalls(t, mode) >= slowCalls(before, mode) + 10));
    for (String mode : MODES) {
      assertThat(mode, slowCalls(after, mode), greaterThanOrEqualTo(slowCalls(before, mode) + 10));
    }
    assertMoved(before, after, "process_cpu_time_ns_total");
    assertMoved(before, after, "agroal_acquire_count_total");
    assertMoved(before, after, "executor_completed_tasks_total", "name=\"quarkus-worker\"");
    assertMoved(before, after, "loomlab_execution_wait_seconds_count", "queue=\"permit\"");
    assertMoved(before, after, "loomlab_execution_wait_seconds_count", "queue=\"thread\"");
    assertMoved(before, after, "loomlab_execution_body_read_seconds_count");
    assertThat(PrometheusText.value(after, "agroal_max_used_count"), greaterThanOrEqualTo(1.0));
    for (String present :
        new String[] {
          "agroal_active_count",
          "agroal_available_count",
          "agroal_awaiting_count",
          "agroal_blocking_time_max_milliseconds",
          "executor_active_threads",
          "executor_queued_tasks",
          "jvm_threads_virtual_pinned_seconds_count",
          "jvm_threads_virtual_submit_failed_total",
          "process_resident_memory_bytes",
          // (not jvm_gc_pause_seconds: it appears only after the JVM's first collection)
          "jvm_threads_live_threads"
        }) {
      assertThat(present, PrometheusText.has(after, present), equalTo(true));
    }
  }

  private static String metrics() {
    return given().get("/q/metrics").then().statusCode(200).extract().asString();
  }

  /**
   * /q/metrics once it shows what {@code shown} asks, or as it is after 30 s (the assertions then
   * say what is missing). The server counts a request when its response has gone out, which may be
   * after the client has read it: a scrape right after the last answer can miss that answer's
   * count.
   */
  private static String metricsShowing(Predicate<String> shown) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
    String m = metrics();
    while (!shown.test(m) && System.nanoTime() < deadline) {
      Thread.sleep(100);
      m = metrics();
    }
    return m;
  }

  /** The requests counted for a URI, over every series of it (status, outcome); 0 when none. */
  private static double count(String metrics, String uri) {
    return orZero(
        PrometheusText.sum(metrics, "http_server_requests_seconds_count", "uri=\"" + uri + "\""));
  }

  private static double slowCalls(String metrics, String mode) {
    return count(metrics, "/api/" + mode + "/db/slow");
  }

  private static double orZero(double v) {
    return Double.isNaN(v) ? 0 : v;
  }

  private static void assertMoved(String before, String after, String name, String... labels) {
    assertThat(
        name,
        PrometheusText.sum(after, name, labels),
        greaterThan(orZero(PrometheusText.sum(before, name, labels))));
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
