package dev.loomlab.info;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.notNullValue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import java.util.List;
import org.junit.jupiter.api.Test;

@QuarkusTest
class LabInfoResourceTest {

  @Test
  void everyFeaturePublishesItsOwnSettingsBesideTheProcesss() {
    ValidatableResponse info = given().get("/api/info").then().statusCode(200);
    info.body("jdk", notNullValue()).body("modes", notNullValue());
    // One setting of each feature (its PublishedSettings bean), then the process's own.
    for (String key :
        List.of(
            "execution.max-wait-ms",
            "tasks.heap-admits-virtual",
            "sleep.max-ms",
            "product.latency-ms",
            "ingest.grpc.max-message-bytes",
            "datasource.max-size",
            "reactive.pool-max-size",
            "input.body-heap-bytes",
            "mixed.rounds-per-ms",
            "buffers.pool-size",
            "pinning.stripes",
            "problem.max-violations",
            "worker.max-threads",
            "http.max-body-bytes",
            "virtual.carriers")) {
      info.body("pools", hasKey(key));
    }
  }

  @Test
  void theEventLoopsRunOnJavasNioUnlessAColumnPrefersTheNativeTransport() {
    given()
        .get("/api/info")
        .then()
        .statusCode(200)
        .body("pools.'reactive.transport'", equalTo("nio"));
  }
}
