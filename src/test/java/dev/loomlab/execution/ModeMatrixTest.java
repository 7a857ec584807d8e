package dev.loomlab.execution;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.test.junit.QuarkusTest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The mode matrix is stated once for the scripts, in k6/lib/modes.json (k6, run.sh and the bench
 * read it), and the service answers the same in /api/info: a workload gaining or losing a mode
 * fails here until both say so.
 */
@QuarkusTest
class ModeMatrixTest {

  @Test
  void theServiceAndTheScriptsAgreeOnEveryWorkloadsModes() throws Exception {
    Map<String, List<String>> scripts =
        new ObjectMapper()
                .readValue(
                    Files.readString(Path.of("k6/lib/modes.json")),
                    new TypeReference<LinkedHashMap<String, Object>>() {})
                .entrySet()
                .stream()
                .filter(e -> !e.getKey().equals("about"))
                .collect(
                    LinkedHashMap::new,
                    (m, e) -> m.put(e.getKey(), castList(e.getValue())),
                    Map::putAll);
    Map<String, List<String>> service =
        given().get("/api/info").then().statusCode(200).extract().jsonPath().getMap("modes");
    assertThat(
        "k6/lib/modes.json must state what the service's Workload enum states",
        service,
        equalTo(scripts));
  }

  @Test
  void aThreadedWorkloadOnTheEventLoopIsANotFoundThatNamesItsModes() {
    given()
        .get("/api/reactive/tasks?count=1&ms=1")
        .then()
        .statusCode(404)
        .contentType("application/problem+json")
        .body(
            "detail",
            equalTo(
                "tasks has no reactive form (each task is a blocked thread by design; the event"
                    + " loop must never block); its modes: worker, virtual, virtual-loop"));
  }

  @SuppressWarnings("unchecked")
  private static List<String> castList(Object value) {
    return (List<String>) value;
  }
}
