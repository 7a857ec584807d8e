package dev.loomlab.reactive;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loomlab.db.OverloadProbe;
import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.TestRecords;
import dev.loomlab.observability.PrometheusText;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The reactive mode as a whole: its requests never block the event loop, the workloads without a
 * reactive form say so, and its pool is part of readiness, metrics and /api/info.
 */
@QuarkusTest
class ReactiveModeTest {

  private static final ObjectMapper JSON = new ObjectMapper();

  /** Where this suite reads the blocked-thread checker's warnings. */
  protected BlockedThreadLog blockedThreadLog() {
    return BlockedThreadLog.inProcess();
  }

  /**
   * Every reactive workload in turn (sleep, db, product, then six chunks written in parallel), the
   * waits long enough (3.5-4.5 s) that a blocking one would hold its event loop for seconds:
   * meanwhile a trivial reactive request, sampled over all the loops, is answered within 2.5 s
   * every time, every answer was built on an event loop, and Vert.x's blocked-thread checker (2 s
   * limit) logged nothing.
   */
  @Test
  void eventLoopIsNeverBlockedUnderLoad() throws Exception {
    long before = blockedThreadLog().count();
    List<OverloadProbe.Answer> answers = new ArrayList<>();
    long slowest;
    try (LoopLatency latency = LoopLatency.sample()) {
      answers.addAll(OverloadProbe.fire("/api/reactive/sleep?ms=4500", 16));
      answers.addAll(OverloadProbe.fire("/api/reactive/db/slow?ms=3500", 12));
      answers.addAll(OverloadProbe.fire("/api/reactive/products/11", 16));
      answers.addAll(
          OverloadProbe.post("/api/reactive/recruits/batch?writes=parallel", chunks(1_003_500)));
      slowest = latency.slowestMillis();
    }
    assertThat(
        answers.stream().map(OverloadProbe.Answer::status).toList(), everyItem(equalTo(200)));
    assertThat(
        answers.stream().map(OverloadProbe.Answer::body).toList(),
        everyItem(containsString("vert.x-eventloop-thread-")));
    assertThat(slowest, lessThan(2_500L));
    assertThat(blockedThreadLog().count() - before, equalTo(0L));
  }

  /** Six chunks of 100 recruits each, disjoint, from {@code from}. */
  private static List<String> chunks(long from) throws Exception {
    IngestClient.RECRUITS.delete(from, from + 599);
    List<String> bodies = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      bodies.add(JSON.writeValueAsString(TestRecords.recruits(from + 100L * i, 100)));
    }
    return bodies;
  }

  @Test
  void threadBoundPathsAnswerThatTheyHaveNoReactiveForm() {
    for (String path : new String[] {"/api/reactive/tasks", "/api/reactive/pinning"}) {
      given()
          .get(path)
          .then()
          .statusCode(404)
          .contentType("application/problem+json")
          .body("type", equalTo("urn:loomlab:problem:not-found"))
          .body("detail", containsString("has no reactive form"))
          .body("detail", containsString("its modes: worker, virtual"));
    }
    for (String domain : new String[] {"recruits", "candidates"}) {
      given()
          .get("/api/reactive/" + domain + "/1")
          .then()
          .statusCode(404)
          .contentType("application/problem+json")
          .body("detail", startsWith("reading " + domain + " back has no reactive form"))
          .body("detail", containsString("POST /api/reactive/" + domain + "/batch"));
    }
  }

  @Test
  void readinessAsksTheDatabaseOutsideBothPools() {
    given()
        .get("/q/health/ready")
        .then()
        .statusCode(200)
        .body("checks.name", hasItem("database"))
        .body("checks.find { it.name == 'database' }.status", equalTo("UP"))
        .body("checks.find { it.name == 'database' }.data.reactive-permits-free", equalTo(20));
  }

  @Test
  void reactivePoolStateIsInTheMetricsAndInfo() {
    given().get("/api/reactive/db/slow?ms=1").then().statusCode(200);
    String m = given().get("/q/metrics").then().statusCode(200).extract().asString();
    assertThat(PrometheusText.value(m, "loomlab_reactive_pool_size"), equalTo(20.0));
    for (String gauge : new String[] {"sql_pool_active", "sql_pool_idle", "sql_pool_queue_size"}) {
      assertThat(
          gauge, PrometheusText.has(m, gauge, "pool_name=\"loomlab-reactive\""), equalTo(true));
    }
    given()
        .get("/api/info")
        .then()
        .statusCode(200)
        .body("pools.'reactive.pool-max-size'", equalTo(20))
        .body("pools.'execution.max-wait-ms'", equalTo(2000));
  }
}
