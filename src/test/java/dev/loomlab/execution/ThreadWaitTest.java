package dev.loomlab.execution;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.lessThan;

import dev.loomlab.db.OverloadProbe;
import dev.loomlab.db.OverloadProbe.Answer;
import dev.loomlab.observability.PrometheusText;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.Map;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The same flood in both modes: 24 requests of 1 s on a worker pool of 4. The worker mode serves
 * what its threads can and refuses the rest with 503 once their wait for a thread spent the budget
 * ({@code loomlab.execution.max-wait}), instead of queueing them for 6 s; the virtual mode has no
 * queue and serves all of them in about 1 s.
 */
@QuarkusTest
@TestProfile(ThreadWaitTest.FourWorkers.class)
@ExtendWith(LoomUnitExtension.class)
class ThreadWaitTest {

  static final int FLOOD = 24;
  static final long MS = 1_000;

  public static class FourWorkers implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("quarkus.thread-pool.max-threads", "4", "loomlab.execution.max-wait", "300ms");
    }
  }

  @Test
  void workerModeRefusesWhatWaitedPastTheBoundWithoutRunningIt() throws Exception {
    List<Answer> answers = OverloadProbe.fire("/api/worker/sleep?ms=" + MS, FLOOD);
    List<Answer> ok = answers.stream().filter(a -> a.status() == 200).toList();
    List<Answer> refused = answers.stream().filter(a -> a.status() == 503).toList();
    assertThat(ok.size() + refused.size(), equalTo(FLOOD));
    assertThat(ok.size(), greaterThan(0));
    // 4 threads cannot start more than 4 requests within the first second; the rest waited longer
    // than 300 ms by the time a thread came free.
    assertThat(refused.size(), greaterThan(FLOOD / 2));
    assertThat(refused.stream().map(Answer::retryAfter).toList(), everyItem(equalTo("1")));
    assertThat(
        refused.stream().map(Answer::contentType).toList(),
        everyItem(equalTo("application/problem+json")));
    assertThat(refused.stream().map(Answer::queue).toList(), everyItem(equalTo("thread")));
    // Bounded: refused once the first threads came free (~1 s), never after the queue drained
    // (6 s without the bound: ThreadWaitUnboundedTest).
    assertThat(refused.stream().map(Answer::millis).toList(), everyItem(lessThan(3_000L)));
    String m = given().get("/q/metrics").then().extract().asString();
    assertThat(
        PrometheusText.value(
            m, "loomlab_execution_refused_total", "mode=\"worker\"", "queue=\"thread\""),
        greaterThan((double) FLOOD / 2));
    assertThat(
        PrometheusText.value(
            m, "loomlab_execution_wait_seconds_count", "mode=\"worker\"", "queue=\"thread\""),
        greaterThan(0.0));
    given().get("/api/worker/sleep?ms=1").then().statusCode(200);
  }

  /**
   * The reactive mode's CPU work moved to the worker pool waits for one of its 4 threads within the
   * same budget: 24 requests of 100 ms of CPU, 2 cores, so past the first waves the rest waited
   * longer than 300 ms and are refused the same way, the work not started.
   */
  @Test
  void offloadedReactiveWorkIsRefusedPastTheBudgetLikeTheWorkerMode() throws Exception {
    List<Answer> answers =
        OverloadProbe.fire("/api/reactive/mixed?cpu-ms=100&wait-ms=0&offload=true", FLOOD);
    List<Answer> refused = answers.stream().filter(a -> a.status() == 503).toList();
    assertThat(
        answers.stream().filter(a -> a.status() == 200).count() + refused.size(),
        equalTo((long) FLOOD));
    assertThat(refused.size(), greaterThan(FLOOD / 4));
    assertThat(
        refused.stream().map(Answer::contentType).toList(),
        everyItem(equalTo("application/problem+json")));
    assertThat(refused.stream().map(Answer::queue).toList(), everyItem(equalTo("thread")));
  }

  @Test
  @ShouldNotPin
  void virtualModeHasNoQueueAndServesTheWholeFlood() throws Exception {
    // One request alone first: concurrent first requests wait on each other's one-time class
    // initialisation (Netty's query decoder, Jackson), which pins a virtual thread.
    given().get("/api/virtual/sleep?ms=1").then().statusCode(200);
    List<Answer> answers = OverloadProbe.fire("/api/virtual/sleep?ms=" + MS, FLOOD);
    assertThat(answers.stream().map(Answer::status).toList(), everyItem(equalTo(200)));
    assertThat(answers.stream().map(Answer::millis).toList(), everyItem(lessThan(MS + 2_000)));
  }

  @Test
  void theBudgetIsPublishedWithThePools() {
    given()
        .get("/api/info")
        .then()
        .body("pools.'execution.max-wait-ms'", equalTo(300))
        .body("pools.'execution.thread-wait-bounded'", equalTo(true));
  }
}
