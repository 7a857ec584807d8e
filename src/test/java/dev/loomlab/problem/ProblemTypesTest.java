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
  void theOpenApiDocumentListsEveryType() {
    var openapi = given().get("/q/openapi?format=json").then().statusCode(200);
    for (ProblemType type : ProblemType.values()) {
      openapi.body("components.schemas.Problem.properties.type.enum", hasItem(type.uri()));
    }
  }
}
