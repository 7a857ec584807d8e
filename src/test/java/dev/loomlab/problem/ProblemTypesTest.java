package dev.loomlab.problem;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;

import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.Test;

/** Errors the framework raises itself get a documented type too, never about:blank. */
@QuarkusTest
class ProblemTypesTest {

  @Test
  void wrongMethodIsAnUnsupportedRequest() {
    given()
        .post("/api/virtual/sleep?ms=1")
        .then()
        .statusCode(405)
        .contentType(Problem.MEDIA_TYPE)
        .body("type", equalTo("urn:loomlab:problem:unsupported-request"))
        .body("status", equalTo(405));
  }

  @Test
  void wrongMediaTypeIsAnUnsupportedRequest() {
    given()
        .contentType("text/plain")
        .body("[]")
        .post("/api/virtual/recruits/batch")
        .then()
        .statusCode(415)
        .contentType(Problem.MEDIA_TYPE)
        .body("type", equalTo("urn:loomlab:problem:unsupported-request"));
  }

  @Test
  void unknownModeIsNotFound() {
    given()
        .get("/api/carrier/sleep?ms=1")
        .then()
        .statusCode(404)
        .contentType(Problem.MEDIA_TYPE)
        .body("type", equalTo("urn:loomlab:problem:not-found"))
        .body("detail", containsString("unknown mode 'carrier'"));
  }

  @Test
  void aRequestLinePastTheBoundIsAProblem() {
    // 5,000 characters: over loomlab.input.max-request-line (4096), under what Vert.x reads.
    given()
        .get("/api/virtual/sleep?ms=1&pad=" + "x".repeat(5_000))
        .then()
        .statusCode(414)
        .contentType(Problem.MEDIA_TYPE)
        .body("type", equalTo("urn:loomlab:problem:request-head-too-large"))
        .body("detail", containsString("loomlab.input.max-request-line"));
  }

  @Test
  void headersPastTheBoundAreAProblem() {
    // Three headers of 8,000 characters: over loomlab.input.max-header-bytes (20480).
    var request = given();
    for (int i = 0; i < 3; i++) {
      request.header("X-Pad-" + i, "y".repeat(8_000));
    }
    request
        .get("/api/virtual/sleep?ms=1")
        .then()
        .statusCode(431)
        .contentType(Problem.MEDIA_TYPE)
        .body("type", equalTo("urn:loomlab:problem:request-head-too-large"))
        .body("detail", containsString("loomlab.input.max-header-bytes"));
    given().get("/api/virtual/sleep?ms=1").then().statusCode(200);
  }

  @Test
  void theOpenApiDocumentListsEveryType() {
    var openapi = given().get("/q/openapi?format=json").then().statusCode(200);
    for (ProblemType type : ProblemType.values()) {
      openapi.body("components.schemas.Problem.properties.type.enum", hasItem(type.uri()));
    }
  }
}
