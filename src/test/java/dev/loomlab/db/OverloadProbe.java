package dev.loomlab.db;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.in;
import static org.hamcrest.Matchers.lessThan;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loomlab.observability.PrometheusText;
import io.restassured.RestAssured;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Fires concurrent requests at once with the JDK's HttpClient (light and warm, so the timings are
 * the server's, not a client's first-use class loading) and collects the answers.
 */
public final class OverloadProbe {

  public record Answer(
      int status, String retryAfter, long millis, String contentType, String body) {

    /** The problem's {@code queue} member (where a 503 overloaded ran out of budget), or null. */
    public String queue() {
      return member("queue");
    }

    /** The problem's {@code type}, or null when the body is not a problem. */
    public String type() {
      return member("type");
    }

    private String member(String name) {
      try {
        JsonNode node = JSON.readTree(body).path(name);
        return node.isTextual() ? node.asText() : null;
      } catch (Exception e) {
        return null;
      }
    }

    /** Status, time and, for a problem, its type, queue and detail: what a failure should print. */
    @Override
    public String toString() {
      String problem =
          type() == null ? "" : " " + type() + " queue=" + queue() + ": " + member("detail");
      return status + " in " + millis + " ms" + problem;
    }
  }

  private static final ObjectMapper JSON = new ObjectMapper();

  private OverloadProbe() {}

  /** {@code concurrent} GETs of {@code path} at once. */
  public static List<Answer> fire(String path, int concurrent) throws Exception {
    URI uri = uri(path);
    List<HttpRequest> requests = new ArrayList<>();
    for (int i = 0; i < concurrent; i++) {
      requests.add(HttpRequest.newBuilder(uri).build());
    }
    return fire(requests);
  }

  /** One JSON POST of each body to {@code path}, all at once. */
  public static List<Answer> post(String path, List<String> jsonBodies) throws Exception {
    URI uri = uri(path);
    List<HttpRequest> requests = new ArrayList<>();
    for (String body : jsonBodies) {
      requests.add(
          HttpRequest.newBuilder(uri)
              .header("Content-Type", "application/json")
              .POST(HttpRequest.BodyPublishers.ofString(body))
              .build());
    }
    return fire(requests);
  }

  /**
   * {@code concurrent} GETs of {@code path} at once whose clients give up after {@code patience}
   * and close their connections; returns how many gave up.
   */
  public static int fireAndGoAway(String path, int concurrent, Duration patience) throws Exception {
    URI uri = uri(path);
    int gaveUp = 0;
    try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
      call(client, HttpRequest.newBuilder(uri("/q/health/live")).build());
      List<Future<Answer>> futures = new ArrayList<>();
      for (int i = 0; i < concurrent; i++) {
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(patience).build();
        futures.add(clients.submit(() -> call(client, request)));
      }
      for (Future<Answer> f : futures) {
        try {
          f.get();
        } catch (ExecutionException e) {
          if (!(e.getCause() instanceof HttpTimeoutException)) {
            throw e;
          }
          gaveUp++;
        }
      }
    }
    return gaveUp;
  }

  private static URI uri(String path) {
    return URI.create(RestAssured.baseURI + ":" + RestAssured.port + path);
  }

  private static List<Answer> fire(List<HttpRequest> requests) throws Exception {
    try (HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        ExecutorService clients = Executors.newVirtualThreadPerTaskExecutor()) {
      // One call alone first, through the very code the flood runs: it opens the client and
      // initialises every class the calls use (Answer, the body handler), so no virtual thread of
      // the flood waits on another's class initialisation, which pins it.
      call(client, HttpRequest.newBuilder(uri("/q/health/live")).build());
      List<Future<Answer>> futures = new ArrayList<>();
      for (HttpRequest request : requests) {
        futures.add(clients.submit(() -> call(client, request)));
      }
      List<Answer> answers = new ArrayList<>();
      for (Future<Answer> f : futures) {
        answers.add(f.get());
      }
      return answers;
    }
  }

  private static Answer call(HttpClient client, HttpRequest request) throws Exception {
    long t0 = System.nanoTime();
    HttpResponse<String> r = client.send(request, HttpResponse.BodyHandlers.ofString());
    return new Answer(
        r.statusCode(),
        r.headers().firstValue("Retry-After").orElse(null),
        (System.nanoTime() - t0) / 1_000_000,
        r.headers().firstValue("Content-Type").orElse(null),
        r.body());
  }

  /**
   * 12 requests of 800 ms on 2 connections: at most 2 run, the rest wait their bounded 300 ms
   * (bulkhead permit or pool acquisition) and are refused with 503 and Retry-After; then the
   * service serves again by itself.
   */
  static void assertFloodIsBounded(String mode, boolean bulkhead) throws Exception {
    assertFloodIsBounded(mode, "", bulkhead);
  }

  /**
   * The queues a request of {@code mode} can run out of budget in (a list that answers {@code
   * contains(null)}: a refusal without a queue fails the assertion, not the matcher).
   */
  public static List<String> queues(String mode, String query) {
    if (mode.equals("reactive") || query.contains("clients=reactive")) {
      return mode.equals("reactive")
          ? Arrays.asList("bulkhead")
          : Arrays.asList("thread", "bulkhead");
    }
    return Arrays.asList("thread", "permit");
  }

  /** The same, with {@code query} appended to the path's query (e.g. "&clients=reactive"). */
  static void assertFloodIsBounded(String mode, String query, boolean bulkhead) throws Exception {
    List<OverloadProbe.Answer> answers =
        OverloadProbe.fire("/api/" + mode + "/db/slow?ms=800" + query, 12);
    String why = "answers: " + answers;
    List<OverloadProbe.Answer> ok = answers.stream().filter(a -> a.status() == 200).toList();
    List<OverloadProbe.Answer> refused = answers.stream().filter(a -> a.status() == 503).toList();
    assertThat(why, ok.size() + refused.size(), equalTo(12));
    assertThat(why, ok.size(), greaterThan(0));
    assertThat(why, refused.size(), greaterThan(5));
    // The refusal names the queue the budget ran out in.
    assertThat(
        why,
        refused.stream().map(OverloadProbe.Answer::queue).toList(),
        everyItem(in(queues(mode, query))));
    assertThat(
        refused.stream().map(OverloadProbe.Answer::retryAfter).toList(), everyItem(equalTo("1")));
    assertThat(
        refused.stream().map(OverloadProbe.Answer::contentType).toList(),
        everyItem(equalTo("application/problem+json")));
    assertThat(
        refused.stream().map(OverloadProbe.Answer::body).toList(),
        everyItem(containsString("\"type\":\"urn:loomlab:problem:overloaded\"")));
    // Bounded: a refusal comes after about the 300 ms wait, never after the queries ahead of it.
    assertThat(
        why,
        refused.stream().map(OverloadProbe.Answer::millis).toList(),
        everyItem(lessThan(1_500L)));

    // Recovered by itself: the next request is served.
    given().get("/api/" + mode + "/db/slow?ms=10").then().statusCode(200);
    String m = given().get("/q/metrics").then().extract().asString();
    assertThat(PrometheusText.value(m, "loomlab_db_rejected_total"), greaterThan(5.0));
    if (bulkhead) {
      assertThat(PrometheusText.value(m, "loomlab_db_bulkhead_waiting"), equalTo(0.0));
    } else {
      assertThat(PrometheusText.has(m, "loomlab_db_bulkhead_waiting"), equalTo(false));
      assertThat(PrometheusText.value(m, "agroal_awaiting_count"), equalTo(0.0));
    }
  }
}
