package dev.loomlab.db;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.junit.QuarkusTest;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class DbResourceTest {

  @Test
  void workerHoldsAConnectionForTheQuery() {
    given()
        .queryParam("ms", 100)
        .get("/api/worker/db/slow")
        .then()
        .statusCode(200)
        .body("mode", equalTo("worker"))
        .body("virtual", equalTo(false))
        .body("sleptMs", equalTo(100))
        .body("heldMs", greaterThanOrEqualTo(100))
        .body("bulkhead", equalTo(true));
  }

  @Test
  @ShouldNotPin
  void virtualHoldsAConnectionWithoutPinning() {
    given()
        .queryParam("ms", 100)
        .get("/api/virtual/db/slow")
        .then()
        .statusCode(200)
        .body("mode", equalTo("virtual"))
        .body("virtual", equalTo(true))
        .body("heldMs", greaterThanOrEqualTo(100));
  }

  @Test
  void reactiveHoldsAReactivePoolConnectionFromTheEventLoop() {
    given()
        .queryParam("ms", 100)
        .get("/api/reactive/db/slow")
        .then()
        .statusCode(200)
        .body("mode", equalTo("reactive"))
        .body("virtual", equalTo(false))
        .body("thread", startsWith("vert.x-eventloop-thread-"))
        .body("sleptMs", equalTo(100))
        .body("heldMs", greaterThanOrEqualTo(100));
  }

  /** The virtual mode's variant: the request's virtual thread awaits the reactive pool. */
  @Test
  @ShouldNotPin
  void virtualThreadAwaitsTheReactivePool() {
    given()
        .queryParam("ms", 100)
        .queryParam("clients", "reactive")
        .get("/api/virtual/db/slow")
        .then()
        .statusCode(200)
        .body("mode", equalTo("virtual"))
        .body("clients", equalTo("reactive"))
        .body("virtual", equalTo(true))
        .body("sleptMs", equalTo(100))
        .body("heldMs", greaterThanOrEqualTo(100));
  }

  @Test
  void reactiveClientsAreAVariantOfTheVirtualModeOnly() {
    given()
        .queryParam("clients", "reactive")
        .get("/api/worker/db/slow")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("type", equalTo("urn:loomlab:problem:invalid-input"))
        .body("detail", containsString("a variant of the virtual mode"))
        .body("violations.field", hasItem("clients"));
  }

  @Test
  void rejectsAQueryOverTheBound() {
    given()
        .queryParam("ms", 10_001)
        .get("/api/virtual/db/slow")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("violations.field", hasItem("ms"));
  }
}
