package dev.loomlab.product;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.startsWith;

import dev.loomlab.observability.PrometheusText;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;
import java.util.Map;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class ProductResourceTest {

  @Test
  @ShouldNotPin
  void virtualLookupTakesTheSlowestDependencyNotTheSum() {
    JsonPath body = lookup("virtual", 42);
    assertThat(body.getLong("product.id"), equalTo(42L));
    assertThat(body.getString("product.name"), equalTo("Product 00042"));
    assertTookTheMaximum(body);
    assertThat(body.getBoolean("subTasksVirtual"), equalTo(true));
    Map<String, String> threads = body.getMap("threads");
    assertThat(threads.values(), everyItem(startsWith("fan-out-virtual-")));
  }

  @Test
  void workerLookupFansOutOnItsOwnPlatformPool() {
    JsonPath body = lookup("worker", 7);
    assertTookTheMaximum(body);
    assertThat(body.getBoolean("subTasksVirtual"), equalTo(false));
    Map<String, String> threads = body.getMap("threads");
    // Never the request worker pool ("executor-thread-N"): that could deadlock under load.
    assertThat(threads.values(), everyItem(startsWith("fan-out-worker-")));
  }

  @Test
  void reactiveLookupCombinesTheFourOnTheEventLoop() {
    JsonPath body = lookup("reactive", 42);
    assertThat(body.getString("product.name"), equalTo("Product 00042"));
    assertThat(body.getLong("stock.productId"), equalTo(42L));
    assertTookTheMaximum(body);
    assertThat(body.getBoolean("subTasksVirtual"), equalTo(false));
    Map<String, String> threads = body.getMap("threads");
    assertThat(threads.keySet(), hasSize(4));
    assertThat(threads.values(), everyItem(startsWith("vert.x-eventloop-thread-")));
  }

  /** The virtual mode's variant: the request's virtual thread awaits the reactive clients. */
  @Test
  @ShouldNotPin
  void virtualThreadAwaitsTheReactiveClients() {
    JsonPath body =
        given()
            .queryParam("clients", "reactive")
            .get("/api/virtual/products/42")
            .then()
            .statusCode(200)
            .body("mode", equalTo("virtual"))
            .body("clients", equalTo("reactive"))
            .extract()
            .jsonPath();
    assertThat(body.getString("product.name"), equalTo("Product 00042"));
    assertTookTheMaximum(body);
    assertThat(body.getBoolean("subTasksVirtual"), equalTo(false));
    Map<String, String> threads = body.getMap("threads");
    assertThat(threads.keySet(), hasSize(4));
    assertThat(threads.values(), everyItem(startsWith("vert.x-eventloop-thread-")));
    assertThat(lookup("virtual", 42).getString("clients"), equalTo("blocking"));
  }

  @Test
  void reactiveClientsAreAVariantOfTheVirtualModeOnly() {
    for (String[] asked :
        new String[][] {{"worker", "reactive"}, {"reactive", "blocking"}, {"virtual", "rx"}}) {
      given()
          .queryParam("clients", asked[1])
          .get("/api/" + asked[0] + "/products/42")
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("type", equalTo("urn:loomlab:problem:invalid-input"))
          .body("violations.field", hasItem("clients"));
    }
  }

  @Test
  void reactiveAnswersTheSameAsTheThreadedModes() {
    JsonPath reactive = lookup("reactive", 77);
    JsonPath virtual = lookup("virtual", 77);
    for (String field : new String[] {"product", "stock", "recommendations", "competitorPrices"}) {
      assertThat(field, reactive.get(field), equalTo(virtual.get(field)));
    }
  }

  @Test
  @ShouldNotPin
  void answerCarriesAllFourDependencies() {
    JsonPath body = lookup("virtual", 9_999);
    assertThat(body.getLong("stock.productId"), equalTo(9_999L));
    assertThat(body.getString("stock.warehouse"), startsWith("wh-"));
    assertThat(body.getList("recommendations"), hasSize(3));
    assertThat(body.getList("competitorPrices.seller"), hasSize(2));
    assertThat(body.getString("product.category"), notNullValue());
    assertThat(body.getMap("latencyMs").keySet(), hasSize(4));
  }

  @Test
  void unknownProductIsNotFound() {
    for (String mode : new String[] {"worker", "virtual", "reactive"}) {
      given()
          .get("/api/" + mode + "/products/10001")
          .then()
          .statusCode(404)
          .contentType("application/problem+json")
          .body("detail", equalTo("no product with id 10001"));
    }
  }

  @Test
  void malformedIdIsBadRequest() {
    given()
        .get("/api/worker/products/abc")
        .then()
        .statusCode(400)
        .contentType("application/problem+json");
    given()
        .get("/api/worker/products/0")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("violations[0].field", equalTo("id"));
  }

  @Test
  void stockStubAnswersAfterTheRequestedDelay() {
    long start = System.nanoTime();
    given()
        .get("/stub/stock/7?ms=60")
        .then()
        .statusCode(200)
        .body("productId", equalTo(7))
        .body("available", equalTo(59))
        .body("warehouse", equalTo("wh-2"));
    assertThat((System.nanoTime() - start) / 1_000_000, greaterThanOrEqualTo(60L));
  }

  @Test
  void dependenciesAreTimedPerMode() {
    lookup("worker", 3);
    lookup("virtual", 3);
    lookup("reactive", 3);
    String m = given().get("/q/metrics").then().statusCode(200).extract().asString();
    for (String mode : new String[] {"worker", "virtual", "reactive"}) {
      for (String dep : new String[] {"catalog", "stock", "recommendations", "prices"}) {
        assertThat(
            mode + " " + dep,
            PrometheusText.value(
                m,
                "loomlab_dependency_seconds_count",
                "dependency=\"" + dep + "\"",
                "mode=\"" + mode + "\""),
            greaterThanOrEqualTo(1.0));
      }
      assertThat(
          PrometheusText.value(
              m, "loomlab_workload_seconds_count", "workload=\"product\"", "mode=\"" + mode + "\""),
          greaterThanOrEqualTo(1.0));
    }
    assertThat(
        PrometheusText.has(m, "executor_queued_tasks", "name=\"fan-out-worker\""), equalTo(true));
  }

  static JsonPath lookup(String mode, long id) {
    return given()
        .get("/api/" + mode + "/products/" + id)
        .then()
        .statusCode(200)
        .contentType("application/json")
        .body("mode", equalTo(mode))
        .extract()
        .jsonPath();
  }

  /** The four ran in parallel: the total is the slowest one plus overhead, far below the sum. */
  static void assertTookTheMaximum(JsonPath body) {
    Map<String, Integer> latency = body.getMap("latencyMs");
    int max = latency.values().stream().mapToInt(Integer::intValue).max().orElseThrow();
    int sum = latency.values().stream().mapToInt(Integer::intValue).sum();
    long total = body.getLong("totalMs");
    // Any three of the four take at least 250 ms together (defaults), so a sequential run could
    // not come in under sum - 100.
    assertThat(total, allOf(greaterThanOrEqualTo((long) max), lessThan((long) sum - 100)));
    assertThat(latency.get("catalog"), allOf(greaterThanOrEqualTo(100), lessThan(1_000)));
    assertThat(latency.get("stock"), greaterThanOrEqualTo(150));
  }
}
