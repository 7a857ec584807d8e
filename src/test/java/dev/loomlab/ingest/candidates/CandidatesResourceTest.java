package dev.loomlab.ingest.candidates;

import static org.hamcrest.Matchers.equalTo;

import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.IngestResourceContract;
import dev.loomlab.ingest.TestRecords;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.ValidatableResponse;
import java.util.List;
import java.util.Map;

/** Candidates (people) through the same ingest engine: the shared contract, candidate fields. */
@QuarkusTest
class CandidatesResourceTest extends IngestResourceContract {

  @Override
  protected IngestClient client() {
    return IngestClient.CANDIDATES;
  }

  @Override
  protected String textField() {
    return "profile";
  }

  @Override
  protected String requiredField() {
    return "name";
  }

  @Override
  protected Map<String, Object> record(long id, List<String> skills) {
    return TestRecords.candidate(id, skills);
  }

  @Override
  protected long base() {
    return 2_000_000;
  }

  @Override
  protected void assertOwnFields(ValidatableResponse stored, long id) {
    stored
        .body("name", equalTo("Candidate " + id))
        .body("headline", equalTo("Platform engineer"))
        .body("yearsOfExperience", equalTo((int) (id % 30)))
        .body("desiredSalary", equalTo(70_000));
  }

  @Override
  protected Map<String, Object> invalidOwnField(long id) {
    Map<String, Object> years = TestRecords.candidate(id, List.of());
    years.put("yearsOfExperience", 81);
    return years;
  }

  @Override
  protected String invalidOwnFieldName() {
    return "yearsOfExperience";
  }
}
