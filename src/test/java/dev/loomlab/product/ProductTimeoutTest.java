package dev.loomlab.product;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;

import dev.loomlab.observability.PrometheusText;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A dependency slower than the timeout: 504 naming it, and nothing left running afterwards. */
@QuarkusTest
@TestProfile(ProductTimeoutTest.SlowRecommendations.class)
class ProductTimeoutTest {

  public static class SlowRecommendations implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          // Far above the others' worst case (stock: 400 ms plus a cold first HTTP call), far
          // below the slow one's: only recommendations can be late.
          "loomlab.product.timeout", "1s",
          "loomlab.product.recommendations.min-ms", "10000",
          "loomlab.product.recommendations.max-ms", "10000");
    }
  }

  @Test
  void slowDependencyIsAGatewayTimeoutNamingIt() {
    for (String mode : new String[] {"worker", "virtual", "reactive"}) {
      long start = System.nanoTime();
      given()
          .get("/api/" + mode + "/products/5")
          .then()
          .statusCode(504)
          .contentType("application/problem+json")
          .body("type", equalTo("urn:loomlab:problem:dependency-failed"))
          .body("detail", equalTo("no answer within 1000 ms from: recommendations"));
      // Answered at the timeout, long before the 10 s dependency would have: it was not waited
      // for. The slack covers a cold JVM's first lookup on a busy machine (a clean-clone run
      // beside two CPU hogs answered the worker mode's first one in 2.6 s).
      assertThat(mode, (System.nanoTime() - start) / 1_000_000, lessThan(5_000L));
    }
  }

  @Test
  void answeredRequestLeavesNoSubTaskRunning() throws InterruptedException {
    given().get("/api/virtual/products/6").then().statusCode(504);
    given().get("/api/worker/products/6").then().statusCode(504);
    given().get("/api/reactive/products/6").then().statusCode(504);
    // The 10 s sleeps were interrupted (the reactive timer cancelled): the count drops to 0 long
    // before they would have ended.
    double running = Double.NaN;
    for (int i = 0; i < 20 && running != 0.0; i++) {
      Thread.sleep(25);
      String m = given().get("/q/metrics").then().extract().asString();
      running = PrometheusText.value(m, "loomlab_fanout_running", "workload=\"product\"");
    }
    assertThat(running, equalTo(0.0));
  }
}
