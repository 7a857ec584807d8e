package dev.loomlab.ingest.recruits;

import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItems;

import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.IngestResourceContract;
import dev.loomlab.ingest.TestRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Recruits (job postings) through the ingest engine: the shared contract, recruit fields. */
@QuarkusTest
class RecruitsResourceTest extends IngestResourceContract {

  @Override
  protected IngestClient client() {
    return IngestClient.RECRUITS;
  }

  @Override
  protected String textField() {
    return "description";
  }

  @Override
  protected String requiredField() {
    return "company";
  }

  @Override
  protected Map<String, Object> record(long id, List<String> skills) {
    return TestRecords.recruit(id, skills);
  }

  @Override
  protected long base() {
    return 1_000_000;
  }

  @Override
  protected void assertOwnFields(ValidatableResponse stored, long id) {
    stored
        .body("company", equalTo("Company " + id))
        .body("title", equalTo("Backend engineer " + id))
        .body("salaryMax", equalTo(90_000))
        .body("postedAt", equalTo("2026-11-01T09:00:00Z"));
  }

  @Override
  protected Map<String, Object> invalidOwnField(long id) {
    Map<String, Object> salary = TestRecords.recruit(id, List.of());
    salary.put("salaryMin", 100_000);
    return salary;
  }

  @Test
  void instantsPostgresCannotStoreAreBadRequests() throws Exception {
    long id = base() + 3_000;
    client().delete(id, id + 1);
    for (String mode : List.of("worker", "virtual", "reactive")) {
      Map<String, Object> late = TestRecords.recruit(id, List.of());
      late.put("postedAt", "+294277-01-01T00:00:00Z");
      Map<String, Object> early = TestRecords.recruit(id + 1, List.of());
      early.put("postedAt", "-4714-01-01T00:00:00Z");
      client()
          .post(mode, "parallel", List.of(late, early))
          .then()
          .statusCode(400)
          .contentType("application/problem+json")
          .body("violations.field", hasItems("recruits[0].postedAt", "recruits[1].postedAt"));
      client().assertNothingIn(id, id + 1);
    }
  }

  @Test
  void timeGivenAsANumberIsRefusedNotReadAsSomeOtherTime() throws Exception {
    long id = base() + 3_100;
    client().delete(id, id);
    for (String mode : List.of("worker", "virtual", "reactive")) {
      for (Object number : List.of(1e64, 1_767_225_600L)) {
        Map<String, Object> record = TestRecords.recruit(id, List.of());
        record.put("postedAt", number);
        client()
            .post(mode, "sequential", List.of(record))
            .then()
            .statusCode(400)
            .contentType("application/problem+json")
            .body("detail", containsString("at [0].postedAt"))
            .body("detail", containsString("a time is ISO 8601 text"));
        client().assertNothingIn(id, id);
      }
    }
  }

  @Override
  protected String invalidOwnFieldName() {
    return "salaryRangeOrdered";
  }
}
