package dev.loomlab.mixed;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.both;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class MixedResourceTest {

  @Test
  void workerDoesTheWorkThenWaitsOnAWorkerThread() throws Exception {
    JsonPath answer = mixed("worker", "cpu-ms=5&wait-ms=20");
    assertThat(answer.getString("mode"), equalTo("worker"));
    assertThat(answer.getString("thread"), startsWith("executor-thread-"));
    assertThat(answer.getBoolean("offloaded"), equalTo(false));
    assertThat(answer.getLong("waitMs"), equalTo(20L));
    assertTheWorkWasDone(answer);
    assertThat(answer.getDouble("cpuMillis"), greaterThan(0.0));
  }

  @Test
  @ShouldNotPin
  void virtualDoesTheWorkOnAVirtualThreadWithoutPinning() throws Exception {
    JsonPath answer = mixed("virtual", "cpu-ms=5&wait-ms=20");
    assertThat(answer.getString("mode"), equalTo("virtual"));
    assertThat(answer.getBoolean("virtual"), equalTo(true));
    assertTheWorkWasDone(answer);
    // The JDK does not measure a virtual thread's CPU time; the answer says so rather than guess.
    assertThat(answer.get("cpuMillis"), nullValue());
    assertThat(answer.getDouble("workMillis"), greaterThan(0.0));
  }

  @Test
  void reactiveDoesTheWorkOnTheEventLoopUnlessOffloaded() throws Exception {
    JsonPath onLoop = mixed("reactive", "cpu-ms=5&wait-ms=20");
    assertThat(onLoop.getString("thread"), startsWith("vert.x-eventloop-thread-"));
    assertThat(onLoop.getBoolean("offloaded"), equalTo(false));
    assertTheWorkWasDone(onLoop);
    JsonPath offloaded = mixed("reactive", "cpu-ms=5&wait-ms=20&offload=true");
    assertThat(offloaded.getString("mode"), equalTo("reactive"));
    assertThat(offloaded.getString("thread"), startsWith("executor-thread-"));
    assertThat(offloaded.getBoolean("offloaded"), equalTo(true));
    assertTheWorkWasDone(offloaded);
  }

  @Test
  void noCpuAsked_noWorkDone() {
    JsonPath answer = mixed("worker", "cpu-ms=0&wait-ms=1");
    assertThat(answer.getLong("rounds"), equalTo(0L));
    assertThat(answer.getString("digest"), equalTo(""));
  }

  /**
   * The CPU a request asks for is what it gets, within the calibration's accuracy: measured from
   * the thread's CPU time (so a busy machine does not inflate it), printed, and held to a wide band
   * only: the figure the reports use is the bench's CPU per request, not this one.
   */
  @Test
  void cpuTimePerRequestIsNearWhatWasAsked() {
    mixed("worker", "cpu-ms=20&wait-ms=0");
    List<Double> cpu = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      cpu.add(mixed("worker", "cpu-ms=20&wait-ms=0").getDouble("cpuMillis"));
    }
    double median = cpu.stream().sorted().toList().get(2);
    System.out.printf(
        "mixed: cpu-ms=20 measured %.1f ms of thread CPU (median of %s)%n", median, cpu);
    assertThat(median, both(greaterThan(20 * 0.5)).and(lessThan(20 * 2.0)));
  }

  @Test
  void rejectsCpuOverTheBoundInEveryModeWithoutWorking() {
    for (String mode : new String[] {"worker", "virtual", "reactive"}) {
      given()
          .get("/api/" + mode + "/mixed?cpu-ms=101&wait-ms=0")
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("type", equalTo("urn:loomlab:problem:invalid-input"))
          .body("detail", equalTo("cpu-ms=101: must be between 0 and 100"));
    }
  }

  @Test
  void rejectsANegativeWaitInEveryMode() {
    for (String query : new String[] {"", "&offload=true"}) {
      given()
          .get("/api/reactive/mixed?cpu-ms=1&wait-ms=-1" + query)
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("detail", equalTo("wait-ms=-1: must be between 0 and 10000"));
    }
    given().get("/api/worker/mixed?wait-ms=-1").then().statusCode(400);
  }

  @Test
  void calibrationIsPublishedWithThePools() {
    mixed("worker", "cpu-ms=1&wait-ms=0");
    given()
        .get("/api/info")
        .then()
        .body("pools.'mixed.max-cpu-ms'", equalTo(100))
        .body("pools.'mixed.rounds-per-ms'", greaterThanOrEqualTo(1));
  }

  private static JsonPath mixed(String mode, String query) {
    return given()
        .get("/api/" + mode + "/mixed?" + query)
        .then()
        .statusCode(200)
        .contentType("application/json")
        .extract()
        .jsonPath();
  }

  /** The digest is recomputed here from the rounds: the work was really done, none skipped. */
  private static void assertTheWorkWasDone(JsonPath answer) throws Exception {
    long rounds = answer.getLong("rounds");
    assertThat(rounds, greaterThan(0L));
    byte[] payload = new byte[1024];
    for (int i = 0; i < payload.length; i++) {
      payload[i] = (byte) i;
    }
    MessageDigest sha = MessageDigest.getInstance("SHA-256");
    byte[] state = new byte[0];
    for (long r = 0; r < rounds; r++) {
      sha.update(payload);
      sha.update(state);
      state = sha.digest();
    }
    assertThat(answer.getString("digest"), equalTo(HexFormat.of().formatHex(state)));
  }
}
