package dev.loomlab.execution;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A deployment that turns the resource-exhausting demos off (components/demos-off, whose list this
 * test reads): their paths answer 404 naming the setting in every mode, the rest serve as before,
 * and /api/info says which workloads are on.
 */
@QuarkusTest
@TestProfile(WorkloadSwitchTest.DemosOff.class)
class WorkloadSwitchTest {

  public static class DemosOff implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("loomlab.execution.workloads-off", componentList());
    }
  }

  /** The value the component sets, from its kustomization (the line after the variable's name). */
  static String componentList() {
    try {
      List<String> lines =
          Files.readAllLines(Path.of("deploy/k8s/components/demos-off/kustomization.yaml"));
      int at = lines.indexOf("          name: LOOMLAB_EXECUTION_WORKLOADS_OFF");
      return lines.get(at + 1).replaceFirst("^ *value: *", "").trim();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void turnedOffWorkloadsAnswer404InEveryMode() {
    for (String path :
        List.of(
            "/api/worker/tasks?count=10",
            "/api/virtual/tasks?count=10",
            "/api/worker/db/slow?ms=10",
            "/api/reactive/db/slow?ms=10",
            "/api/virtual/pinning?lock=native",
            "/api/reactive/mixed?cpu-ms=1&wait-ms=0",
            "/api/worker/mixed?cpu-ms=1&wait-ms=0")) {
      given()
          .get(path)
          .then()
          .statusCode(404)
          .contentType("application/problem+json")
          .body("type", equalTo("urn:loomlab:problem:not-found"))
          .body("detail", containsString("loomlab.execution.workloads-off"));
    }
  }

  @Test
  void otherWorkloadsServeAndInfoSaysWhichAreOn() {
    given().get("/api/virtual/sleep?ms=1").then().statusCode(200);
    given()
        .get("/api/info")
        .then()
        .statusCode(200)
        .body("pools.'workloads.on'", hasItem("sleep"))
        .body("pools.'workloads.on'", not(hasItem("tasks")))
        .body("pools.'workloads.on'", not(hasItem("db")))
        .body("pools.'workloads.on'", not(hasItem("pinning")))
        .body("pools.'workloads.on'", not(hasItem("mixed")));
  }
}
