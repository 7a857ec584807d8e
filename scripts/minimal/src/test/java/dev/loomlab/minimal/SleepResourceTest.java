package dev.loomlab.minimal;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** The minimal application's one endpoint answers as the service's first-answer path does. */
@QuarkusTest
class SleepResourceTest {

  @Test
  void answersInTheVirtualModeAfterTheSleep() {
    given()
        .queryParam("ms", 1)
        .when()
        .get("/api/virtual/sleep")
        .then()
        .statusCode(200)
        .contentType(containsString("application/json"))
        .body("mode", equalTo("virtual"))
        .body("sleptMs", equalTo(1));
  }

  @Test
  void aSleepOutOfRangeOrNotANumberIsAProblem() {
    for (String ms : new String[] {"-1", "10001", "abc", "99999999999"}) {
      given()
          .queryParam("ms", ms)
          .when()
          .get("/api/virtual/sleep")
          .then()
          .statusCode(400)
          .contentType(containsString("application/problem+json"))
          .body("status", equalTo(400));
    }
  }
}
