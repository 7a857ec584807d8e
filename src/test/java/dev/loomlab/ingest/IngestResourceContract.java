package dev.loomlab.ingest;

import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.restassured.http.ContentType;
import io.restassured.response.ValidatableResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What every domain's endpoints promise, through the one ingest engine: the same rows in every mode
 * and strategy (the reactive mode has no COPY), replays that converge, the chunk as the truth for
 * children, every violation listed with nothing written, problem answers. A domain's test supplies
 * its records and fields.
 */
@ExtendWith(LoomUnitExtension.class)
public abstract class IngestResourceContract extends HostileInputContract {

  @Test
  void workerSequentialRoundTrip() throws Exception {
    roundTrip("worker", "sequential", base());
  }

  @Test
  void workerParallelRoundTrip() throws Exception {
    roundTrip("worker", "parallel", base() + 100);
  }

  @Test
  @ShouldNotPin
  void virtualSequentialRoundTrip() throws Exception {
    roundTrip("virtual", "sequential", base() + 200);
  }

  @Test
  @ShouldNotPin
  void virtualParallelRoundTrip() throws Exception {
    roundTrip("virtual", "parallel", base() + 300);
  }

  @Test
  @ShouldNotPin
  void copyAnchorWritesTheSameRows() throws Exception {
    roundTrip("virtual", "copy", base() + 400);
  }

  @Test
  void reactiveSequentialRoundTrip() throws Exception {
    roundTrip("reactive", "sequential", base() + 3_000);
  }

  @Test
  void reactiveParallelRoundTrip() throws Exception {
    roundTrip("reactive", "parallel", base() + 3_100);
  }

  @Test
  void reactiveHasNoCopyAndWritesNothing() throws Exception {
    long from = base() + 3_200;
    TestDatabase.delete(noun(), from, from + 9);
    post("reactive", "copy", chunk(from, 2))
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("type", equalTo("urn:loomlab:problem:invalid-input"))
        .body("detail", containsString("writes=copy has no reactive form"))
        .body("violations.field", contains("writes"));
    assertNothingIn(from, from + 9);
  }

  @Test
  void reactiveInvalidChunkIsListedAndNothingIsWritten() throws Exception {
    long from = base() + 3_300;
    TestDatabase.delete(noun(), from, from + 9);
    Map<String, Object> blank = record(from + 1, List.of());
    blank.put(requiredField(), " ");
    Map<String, Object> shortEmbedding = record(from + 2, List.of());
    shortEmbedding.put("embedding", List.of(0.1, 0.2));
    for (String writes : new String[] {"sequential", "parallel"}) {
      post("reactive", writes, List.of(record(from, List.of("java")), blank, shortEmbedding))
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("violations.field", hasItem(domain() + "[1]." + requiredField()))
          .body("violations.field", hasItem(domain() + "[2].embedding"));
    }
    assertNothingIn(from, from + 9);
  }

  @Test
  void replayedChunkLeavesSameRows() throws Exception {
    long from = base() + 500;
    TestDatabase.delete(noun(), from, from + 9);
    String[][] writers = {
      {"worker", "parallel"},
      {"worker", "sequential"},
      {"worker", "copy"},
      {"reactive", "parallel"},
      {"reactive", "sequential"},
      {"virtual", "parallel"}
    };
    for (String[] w : writers) {
      post(w[0], w[1], chunk(from, 5)).then().statusCode(200);
      assertRows(from, from + 9, 5, 15, 5, 5);
    }
  }

  @Test
  void skillSetIsReplacedByTheChunks() throws Exception {
    long id = base() + 600;
    TestDatabase.delete(noun(), id, id);
    post("virtual", "parallel", List.of(record(id, List.of("java", "sql")))).then().statusCode(200);
    post("virtual", "parallel", List.of(record(id, List.of("go")))).then().statusCode(200);
    given()
        .get("/api/virtual/" + domain() + "/" + id)
        .then()
        .statusCode(200)
        .body("skills.name", contains("go"));
    Map<String, Object> noText = record(id, List.of());
    noText.remove(textField());
    post("worker", "sequential", List.of(noText)).then().statusCode(200);
    given()
        .get("/api/worker/" + domain() + "/" + id)
        .then()
        .statusCode(200)
        .body("skills.size()", equalTo(0))
        .body(textField(), nullValue());
  }

  @Test
  void unknownRecordIsNotFound() {
    given()
        .get("/api/virtual/" + domain() + "/999999999")
        .then()
        .statusCode(404)
        .contentType("application/problem+json")
        .body("type", equalTo("urn:loomlab:problem:not-found"))
        .body("detail", equalTo("no " + noun() + " with id 999999999"));
  }

  @Test
  void unreadableJsonIsABadRequest() {
    given()
        .contentType(ContentType.JSON)
        .body("[{\"id\": \"abc\"}]")
        .post("/api/virtual/" + domain() + "/batch")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("type", equalTo("urn:loomlab:problem:invalid-input"))
        .body("detail", containsString("[0].id"));
  }

  @Test
  void unknownWriteStrategyIsABadRequest() throws Exception {
    long id = base() + 700;
    TestDatabase.delete(noun(), id, id);
    post("virtual", "eventually", List.of(record(id, List.of()))).then().statusCode(400);
    assertNothingIn(id, id);
  }

  @Test
  void everyViolationIsListedAndNothingIsWritten() throws Exception {
    long from = base() + 800;
    TestDatabase.delete(noun(), from, from + 20);
    Map<String, Object> blank = record(from, List.of());
    blank.put(requiredField(), " ");
    Map<String, Object> shortEmbedding = record(from + 1, List.of());
    shortEmbedding.put("embedding", List.of(0.1, 0.2));
    Map<String, Object> own = invalidOwnField(from + 2);
    Map<String, Object> skills = record(from + 3, List.of("java", "java"));
    Map<String, Object> level = record(from + 4, List.of());
    level.put("skills", List.of(Map.of("name", "java", "level", 6)));
    Map<String, Object> noEmbedding = record(from + 5, List.of());
    noEmbedding.remove("embedding");
    Map<String, Object> valid = record(from + 6, List.of("java"));
    Map<String, Object> duplicate = record(from + 6, List.of("go"));
    String d = domain();
    post(
            "worker",
            "parallel",
            List.of(blank, shortEmbedding, own, skills, level, noEmbedding, valid, duplicate))
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("violations.field", hasItem(d + "[0]." + requiredField()))
        .body("violations.field", hasItem(d + "[1].embedding"))
        .body("violations.field", hasItem(d + "[2]." + invalidOwnFieldName()))
        .body("violations.field", hasItem(d + "[3].skillNamesUnique"))
        .body("violations.field", hasItem(d + "[4].skills[0].level"))
        .body("violations.field", hasItem(d + "[5].embedding"))
        .body("violations.field", hasItem(d + "[7].id"));
    assertNothingIn(from, from + 20);
  }

  @Test
  void nonFiniteEmbeddingIsRejected() throws Exception {
    long id = base() + 900;
    TestDatabase.delete(noun(), id, id);
    String json = new ObjectMapper().writeValueAsString(List.of(record(id, List.of())));
    // 1e400 overflows a double: Infinity, which pgvector would refuse after the parent was written.
    String overflowing = json.replaceFirst("\"embedding\":\\[[^,]+,", "\"embedding\":[1e400,");
    given()
        .contentType(ContentType.JSON)
        .body(overflowing)
        .post("/api/worker/" + domain() + "/batch?writes=parallel")
        .then()
        .statusCode(400)
        .body("violations.message", hasItem("values must be finite numbers"));
    assertNothingIn(id, id);
  }

  @Test
  void emptyAndOversizedChunksAreRejected() throws Exception {
    post("virtual", "sequential", List.of())
        .then()
        .statusCode(400)
        .body("violations.message", hasItem("must hold at least one record"));
    long from = base() + 1_000;
    TestDatabase.delete(noun(), from, from + 1_001);
    List<Map<String, Object>> tooMany = new ArrayList<>();
    for (long id = from; id <= from + 1_000; id++) {
      tooMany.add(Map.of("id", id, requiredField(), "x", "embedding", List.of()));
    }
    // Refused while it is parsed, at the 1,001st record: nothing past the bound is built.
    post("virtual", "sequential", tooMany)
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", containsString("at most 1000 values (loomlab.input.max-array-length)"));
    assertNothingIn(from, from + 1_001);
  }

  /** Every mode with every write strategy it has: where a bad chunk must write nothing. */
  private void roundTrip(String mode, String writes, long from) throws Exception {
    TestDatabase.delete(noun(), from, from + 99);
    List<String> t = client().tables();
    post(mode, writes, chunk(from, 3))
        .then()
        .statusCode(200)
        .contentType("application/json")
        .body("domain", equalTo(domain()))
        .body("mode", equalTo(mode))
        .body("writes", equalTo(writes))
        .body("records", equalTo(3))
        .body(
            "thread",
            mode.equals("reactive")
                ? startsWith("vert.x-eventloop-thread-")
                : not(startsWith("vert.x-eventloop-thread-")))
        .body("virtual", equalTo(mode.equals("virtual")))
        .body("rows." + t.get(0), equalTo(3))
        .body("rows." + t.get(1), equalTo(9))
        .body("rows." + t.get(2), equalTo(3))
        .body("rows." + t.get(3), equalTo(3));
    assertRows(from, from + 99, 3, 9, 3, 3);
    ValidatableResponse stored =
        given()
            // Reading back runs on threads only: the reactive mode's rows are read on virtual.
            .get("/api/" + readMode(mode) + "/" + domain() + "/" + (from + 1))
            .then()
            .statusCode(200)
            .body("id", equalTo((int) (from + 1)))
            .body("skills.name", contains("java", "k8s", "sql"))
            .body(textField(), equalTo(record(from + 1, List.of()).get(textField())))
            .body("embeddingDimension", equalTo(384));
    assertOwnFields(stored, from + 1);
  }

  private static String readMode(String mode) {
    return mode.equals("reactive") ? "virtual" : mode;
  }
}
