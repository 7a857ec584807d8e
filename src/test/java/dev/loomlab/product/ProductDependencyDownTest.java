package dev.loomlab.product;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A dependency that fails outright: 504 naming it, at once rather than at the timeout. */
@QuarkusTest
@TestProfile(ProductDependencyDownTest.StockDown.class)
class ProductDependencyDownTest {

  public static class StockDown implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      // Port 9 (discard) is closed on loopback: connection refused.
      return Map.of("loomlab.product.stock.url", "http://127.0.0.1:9/stub/stock");
    }
  }

  @Test
  void failingStockServiceIsAGatewayTimeoutNamingIt() {
    for (String mode : new String[] {"worker", "virtual", "reactive"}) {
      given()
          .get("/api/" + mode + "/products/5")
          .then()
          .statusCode(504)
          .contentType("application/problem+json")
          .body("type", equalTo("urn:loomlab:problem:dependency-failed"))
          .body("detail", equalTo("dependency stock failed: cannot connect"));
    }
  }
}
