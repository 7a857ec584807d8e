package dev.loomlab.buffers;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThanOrEqualTo;
import static org.hamcrest.Matchers.startsWith;

import dev.loomlab.observability.PrometheusText;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.HashSet;
import java.util.Set;
import java.util.zip.CRC32;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class BuffersResourceTest {

  static final int REQUESTS = 12;

  @Test
  @ShouldNotPin
  void aThreadLocalCacheAllocatesForEveryVirtualThread() {
    buffers("virtual", "thread", 1);
    double before = allocated("thread");
    for (int i = 0; i < REQUESTS; i++) {
      assertThat(buffers("virtual", "thread", i).getBoolean("fresh"), equalTo(true));
    }
    assertThat(allocated("thread") - before, equalTo((double) REQUESTS));
  }

  @Test
  void aThreadLocalCacheIsReusedByThePoolsThreads() {
    Set<String> threads = new HashSet<>();
    double before = allocated("thread");
    int fresh = 0;
    for (int i = 0; i < REQUESTS; i++) {
      JsonPath answer = buffers("worker", "thread", i);
      threads.add(answer.getString("thread"));
      fresh += answer.getBoolean("fresh") ? 1 : 0;
    }
    // At most one buffer per worker thread that served: a thread that served before reuses its own.
    assertThat(fresh, lessThanOrEqualTo(threads.size()));
    assertThat(allocated("thread") - before, equalTo((double) fresh));
  }

  @Test
  @ShouldNotPin
  void aSharedPoolIsReusedByVirtualThreadsToo() {
    buffers("virtual", "pool", 1);
    double before = allocated("pool");
    for (int i = 0; i < REQUESTS; i++) {
      buffers("virtual", "pool", i);
    }
    // One request at a time: the buffer the last one gave back is there for the next.
    assertThat(allocated("pool") - before, equalTo(0.0));
  }

  @Test
  void theEventLoopIsAPlatformThreadAndKeepsItsThreadLocal() {
    JsonPath answer = buffers("reactive", "thread", 3);
    assertThat(answer.getString("thread"), startsWith("vert.x-eventloop-thread-"));
    assertThat(answer.getString("cache"), equalTo("thread"));
  }

  @Test
  void everyByteIsEncodedFromTheSeed() {
    JsonPath answer = buffers("worker", "pool", 42);
    byte[] expected = new byte[answer.getInt("bytes")];
    long x = 42;
    for (int i = 0; i < expected.length; i++) {
      x = x * 6364136223846793005L + 1442695040888963407L;
      expected[i] = (byte) (x >>> 56);
    }
    CRC32 crc = new CRC32();
    crc.update(expected);
    assertThat(answer.getLong("crc"), equalTo(crc.getValue()));
    assertThat(answer.getInt("bytes"), equalTo(64 * 1024));
  }

  @Test
  void rejectsAnUnknownCacheAsProblem() {
    given()
        .get("/api/virtual/buffers?cache=heap")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("violations.field", org.hamcrest.Matchers.hasItem("cache"))
        .body("detail", startsWith("cache must be one of [thread, pool]"));
  }

  @Test
  void rejectsAWaitOverTheBound() {
    given()
        .get("/api/reactive/buffers?wait-ms=10001")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", equalTo("wait-ms=10001: must be between 0 and 10000"));
  }

  private static JsonPath buffers(String mode, String cache, long seed) {
    return given()
        .get("/api/" + mode + "/buffers?cache=" + cache + "&seed=" + seed + "&wait-ms=1")
        .then()
        .statusCode(200)
        .extract()
        .jsonPath();
  }

  private static double allocated(String cache) {
    String metrics = given().get("/q/metrics").then().statusCode(200).extract().asString();
    return PrometheusText.value(
        metrics, "loomlab_buffers_allocated_total", "cache=\"" + cache + "\"");
  }
}
