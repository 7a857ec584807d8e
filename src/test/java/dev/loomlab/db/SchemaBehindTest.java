package dev.loomlab.db;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A service whose build needs a newer schema than the database holds (its migration has not run
 * yet) is alive and unready, and says why; it serves what needs no schema meanwhile.
 */
@QuarkusTest
@TestProfile(SchemaBehindTest.NewerBuild.class)
class SchemaBehindTest {

  /** A build whose last migration would be V999. */
  public static class NewerBuild implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("loomlab.db.schema-version", "999");
    }
  }

  @Test
  void anOlderSchemaKeepsTheServiceUnreadyAndSaysWhy() {
    given()
        .get("/q/health/ready")
        .then()
        .statusCode(503)
        .body("status", equalTo("DOWN"))
        .body("checks.find { it.name == 'database' }.data.schema", equalTo("5"))
        .body("checks.find { it.name == 'database' }.data.schema-needed", equalTo("999"))
        .body(
            "checks.find { it.name == 'database' }.data.error",
            startsWith("schema older than needed"));
    given().get("/q/health/live").then().statusCode(200);
    given().queryParam("ms", 0).get("/api/virtual/sleep").then().statusCode(200);
  }
}
