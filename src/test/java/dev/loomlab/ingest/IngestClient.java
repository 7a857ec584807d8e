package dev.loomlab.ingest;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.restassured.http.ContentType;
import io.restassured.response.Response;
import java.util.List;

/**
 * A domain's endpoints and tables as tests use them: post a chunk, count what landed.
 *
 * @param domain the path segment ("recruits")
 * @param noun the parent table ("recruit")
 * @param tables the four tables in the engine's order
 */
public record IngestClient(String domain, String noun, List<String> tables) {

  public static final IngestClient RECRUITS =
      new IngestClient(
          "recruits",
          "recruit",
          List.of("recruit", "recruit_skill", "recruit_description", "recruit_skill_embedding"));
  public static final IngestClient CANDIDATES =
      new IngestClient(
          "candidates",
          "candidate",
          List.of(
              "candidate",
              "candidate_skill",
              "candidate_description",
              "candidate_skills_embedding"));

  public Response post(String mode, String writes, Object chunk) {
    return given()
        .contentType(ContentType.JSON)
        .body(chunk)
        .post("/api/" + mode + "/" + domain + "/batch?writes=" + writes);
  }

  /** Rows per table with a key in [from, to], in the tables' order. */
  public void assertRows(long from, long to, int... expected) throws Exception {
    for (int i = 0; i < tables.size(); i++) {
      String table = tables.get(i);
      assertThat(table, TestDatabase.count(noun, table, from, to), equalTo(expected[i]));
    }
  }

  public void assertNothingIn(long from, long to) throws Exception {
    assertRows(from, to, 0, 0, 0, 0);
  }

  public void delete(long from, long to) throws Exception {
    TestDatabase.delete(noun, from, to);
  }
}
