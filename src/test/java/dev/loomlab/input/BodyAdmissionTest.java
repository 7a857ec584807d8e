package dev.loomlab.input;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Bodies in flight are admitted against the heap they may take: while a slow client holds most of
 * it, another body waits its bounded time and is refused with 503; once the slow one goes, bodies
 * are admitted again.
 */
@QuarkusTest
@TestProfile(BodyAdmissionTest.SmallBodyHeap.class)
class BodyAdmissionTest {

  public static class SmallBodyHeap implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "loomlab.input.body-heap", "4M",
          "loomlab.execution.max-wait", "500ms");
    }
  }

  /** A body of about 700 KB: 2.1 MB of the 4 MB at the factor of 3. */
  private static String body() {
    StringBuilder sb = new StringBuilder(720_000).append("[{\"id\":1,\"embedding\":[");
    for (int i = 0; i < 100_000; i++) {
      sb.append(i == 0 ? "" : ",").append("0.25");
    }
    return sb.append("]}]").toString();
  }

  @Test
  void bodiesPastTheHeapTheyMayTakeWaitThenGet503() throws Exception {
    String body = body();
    try (Socket slow = new Socket("127.0.0.1", RestAssured.port)) {
      // Declares 1 MB (3 MB of the heap at the factor of 3), sends a few bytes, and stalls.
      OutputStream out = slow.getOutputStream();
      out.write(
          ("POST /api/worker/recruits/batch HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                  + "Content-Type: application/json\r\nContent-Length: 1000000\r\n\r\n[{")
              .getBytes(StandardCharsets.US_ASCII));
      out.flush();
      // The stalled body is admitted once its head is read; until then the next is, too.
      Response refused = null;
      long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
      while (System.nanoTime() < deadline) {
        refused = post(body);
        if (refused.statusCode() == 503) {
          break;
        }
      }
      assertThat(refused.asString(), refused.statusCode(), equalTo(503));
      assertThat(refused.contentType(), equalTo("application/problem+json"));
      assertThat(refused.path("type"), equalTo("urn:loomlab:problem:overloaded"));
      assertThat(refused.path("detail"), containsString("loomlab.input.body-heap"));
      assertThat(refused.getHeader("Retry-After"), equalTo("1"));
    }
    // The slow client is gone: its share comes back when the server sees the connection close.
    Response admitted = null;
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
    while (System.nanoTime() < deadline) {
      admitted = post(body);
      if (admitted.statusCode() != 503) {
        break;
      }
    }
    // Admitted, read and refused for what it is (an embedding past the array bound), not for heap.
    assertThat(admitted.asString(), admitted.statusCode(), equalTo(400));
  }

  private static Response post(String body) {
    return given().contentType(ContentType.JSON).body(body).post("/api/worker/recruits/batch");
  }
}
