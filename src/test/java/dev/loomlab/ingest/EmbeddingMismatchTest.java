package dev.loomlab.ingest;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * An embedding length the schema's {@code vector(n)} columns do not have keeps the service unready,
 * naming the column and the fix (it refused to start before the check moved off the start path);
 * the database's own check stays UP.
 */
@QuarkusTest
@TestProfile(EmbeddingMismatchTest.ShorterEmbeddings.class)
class EmbeddingMismatchTest {

  /** Embeddings of 8 values against the migration's vector(384). */
  public static class ShorterEmbeddings implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("loomlab.ingest.embedding-dimension", "8");
    }
  }

  @Test
  void aColumnOfAnotherLengthKeepsTheServiceUnreadyAndNamesTheFix() {
    given()
        .get("/q/health/ready")
        .then()
        .statusCode(503)
        .body("status", equalTo("DOWN"))
        .body(
            "checks.find { it.name == 'embedding-columns' }.data.error",
            containsString(".embedding is vector(384); change one of them"))
        .body("checks.find { it.name == 'database' }.status", equalTo("UP"));
  }
}
