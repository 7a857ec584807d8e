package dev.loomlab.recruits;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.nullValue;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;
import java.util.List;
import java.util.Map;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class RecruitsResourceTest {

  static final List<String> TABLES =
      List.of("recruit", "recruit_skill", "recruit_description", "recruit_skill_embedding");

  @Test
  void workerSequentialRoundTrip() throws Exception {
    roundTrip("worker", "sequential", 1_000_000);
  }

  @Test
  void workerParallelRoundTrip() throws Exception {
    roundTrip("worker", "parallel", 1_000_100);
  }

  @Test
  @ShouldNotPin
  void virtualSequentialRoundTrip() throws Exception {
    roundTrip("virtual", "sequential", 1_000_200);
  }

  @Test
  @ShouldNotPin
  void virtualParallelRoundTrip() throws Exception {
    roundTrip("virtual", "parallel", 1_000_300);
  }

  @Test
  @ShouldNotPin
  void copyAnchorWritesTheSameRows() throws Exception {
    roundTrip("virtual", "copy", 1_000_400);
  }

  @Test
  void replayedChunkLeavesSameRows() throws Exception {
    long from = 1_000_500;
    TestDatabase.deleteRecruits(from, from + 9);
    for (String writes : new String[] {"parallel", "sequential", "parallel"}) {
      post("worker", writes, Recruits.chunk(from, 5)).then().statusCode(200);
      assertRows(from, from + 9, 5, 15, 5, 5);
    }
  }

  @Test
  void skillSetIsReplacedByTheChunks() throws Exception {
    long id = 1_000_600;
    TestDatabase.deleteRecruits(id, id);
    post("virtual", "parallel", List.of(Recruits.recruit(id, List.of("java", "sql"))))
        .then()
        .statusCode(200);
    post("virtual", "parallel", List.of(Recruits.recruit(id, List.of("go"))))
        .then()
        .statusCode(200);
    given()
        .get("/api/virtual/recruits/" + id)
        .then()
        .statusCode(200)
        .body("skills.name", contains("go"));
    Map<String, Object> noDescription = Recruits.recruit(id, List.of());
    noDescription.remove("description");
    post("worker", "sequential", List.of(noDescription)).then().statusCode(200);
    given()
        .get("/api/worker/recruits/" + id)
        .then()
        .statusCode(200)
        .body("skills.size()", equalTo(0))
        .body("description", nullValue());
  }

  @Test
  void unknownRecruitIsNotFound() {
    given()
        .get("/api/virtual/recruits/999999999")
        .then()
        .statusCode(404)
        .contentType("application/problem+json");
  }

  private static void roundTrip(String mode, String writes, long from) throws Exception {
    TestDatabase.deleteRecruits(from, from + 99);
    post(mode, writes, Recruits.chunk(from, 3))
        .then()
        .statusCode(200)
        .contentType("application/json")
        .body("mode", equalTo(mode))
        .body("writes", equalTo(writes))
        .body("records", equalTo(3))
        .body("rows.recruit", equalTo(3))
        .body("rows.recruit_skill", equalTo(9))
        .body("rows.recruit_description", equalTo(3))
        .body("rows.recruit_skill_embedding", equalTo(3));
    assertRows(from, from + 99, 3, 9, 3, 3);
    given()
        .get("/api/" + mode + "/recruits/" + (from + 1))
        .then()
        .statusCode(200)
        .body("company", equalTo("Company " + (from + 1)))
        .body("salaryMax", equalTo(90_000))
        .body("postedAt", equalTo("2026-11-01T09:00:00Z"))
        .body("skills.name", contains("java", "k8s", "sql"))
        .body("description", equalTo("We are hiring number " + (from + 1)))
        .body("embeddingDimension", equalTo(384));
  }

  static io.restassured.response.Response post(String mode, String writes, Object chunk) {
    return given()
        .contentType(ContentType.JSON)
        .body(chunk)
        .post("/api/" + mode + "/recruits/batch?writes=" + writes);
  }

  static void assertRows(long from, long to, int... expected) throws Exception {
    for (int i = 0; i < TABLES.size(); i++) {
      assertThat(TABLES.get(i), TestDatabase.count(TABLES.get(i), from, to), equalTo(expected[i]));
    }
  }

  static void assertNothingIn(long from, long to) throws Exception {
    assertRows(from, to, 0, 0, 0, 0);
  }

  @Test
  void unreadableJsonIsABadRequest() {
    given()
        .contentType(ContentType.JSON)
        .body("[{\"id\": \"abc\"}]")
        .post("/api/virtual/recruits/batch")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("detail", org.hamcrest.Matchers.containsString("[0].id"));
  }

  @Test
  void unknownWriteStrategyIsABadRequest() throws Exception {
    long id = 1_000_700;
    TestDatabase.deleteRecruits(id, id);
    post("virtual", "eventually", List.of(Recruits.recruit(id, List.of()))).then().statusCode(400);
    assertNothingIn(id, id);
  }

  @Test
  void everyViolationIsListedAndNothingIsWritten() throws Exception {
    long from = 1_000_800;
    TestDatabase.deleteRecruits(from, from + 20);
    Map<String, Object> blank = Recruits.recruit(from, List.of());
    blank.put("company", " ");
    Map<String, Object> shortEmbedding = Recruits.recruit(from + 1, List.of());
    shortEmbedding.put("embedding", List.of(0.1, 0.2));
    Map<String, Object> salary = Recruits.recruit(from + 2, List.of());
    salary.put("salaryMin", 100_000);
    Map<String, Object> skills = Recruits.recruit(from + 3, List.of("java", "java"));
    Map<String, Object> level = Recruits.recruit(from + 4, List.of());
    level.put("skills", List.of(Map.of("name", "java", "level", 6)));
    Map<String, Object> noEmbedding = Recruits.recruit(from + 5, List.of());
    noEmbedding.remove("embedding");
    Map<String, Object> valid = Recruits.recruit(from + 6, List.of("java"));
    Map<String, Object> duplicate = Recruits.recruit(from + 6, List.of("go"));
    post(
            "worker",
            "parallel",
            List.of(blank, shortEmbedding, salary, skills, level, noEmbedding, valid, duplicate))
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("violations.field", hasItem("recruits[0].company"))
        .body("violations.field", hasItem("recruits[1].embedding"))
        .body("violations.field", hasItem("recruits[2].salaryRangeOrdered"))
        .body("violations.field", hasItem("recruits[3].skillNamesUnique"))
        .body("violations.field", hasItem("recruits[4].skills[0].level"))
        .body("violations.field", hasItem("recruits[5].embedding"))
        .body("violations.field", hasItem("recruits[7].id"));
    assertNothingIn(from, from + 20);
  }

  @Test
  void nonFiniteEmbeddingIsRejected() throws Exception {
    long id = 1_000_900;
    TestDatabase.deleteRecruits(id, id);
    String json =
        new com.fasterxml.jackson.databind.ObjectMapper()
            .writeValueAsString(List.of(Recruits.recruit(id, List.of())));
    // 1e400 overflows a double: Infinity, which pgvector would refuse after the parent was written.
    String overflowing = json.replaceFirst("\"embedding\":\\[[^,]+,", "\"embedding\":[1e400,");
    given()
        .contentType(ContentType.JSON)
        .body(overflowing)
        .post("/api/worker/recruits/batch?writes=parallel")
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
        .body("violations.message", hasItem("must hold at least one recruit"));
    long from = 1_001_000;
    TestDatabase.deleteRecruits(from, from + 1_001);
    List<Map<String, Object>> tooMany = new java.util.ArrayList<>();
    for (long id = from; id <= from + 1_000; id++) {
      tooMany.add(Map.of("id", id, "company", "c", "title", "t", "embedding", List.of()));
    }
    post("virtual", "sequential", tooMany)
        .then()
        .statusCode(400)
        .body(
            "violations.message",
            hasItem("at most 1000 recruits per chunk (loomlab.recruits.max-chunk), got 1001"));
    assertNothingIn(from, from + 1_001);
  }
}
