package dev.loomlab.ingest.recruits;

import static dev.loomlab.ingest.IngestClient.RECRUITS;
import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

import dev.loomlab.ingest.TestDatabase;
import dev.loomlab.ingest.TestRecords;
import dev.loomlab.observability.PrometheusText;
import io.quarkus.test.junit.QuarkusTest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A transaction that loses to a concurrent writer, in every mode: a test-only trigger fails the
 * skills' write with SQLState 40P01 (deadlock detected) the first {@code n} times. Once, the
 * transaction is retried and the chunk lands; past {@code loomlab.ingest.conflict-retries} (4), the
 * client gets 503 {@code write-conflict} naming the table, and the transaction kept nothing.
 */
@QuarkusTest
class ConflictRetryTest {

  static final long FROM = 1_004_000;

  @BeforeEach
  void clean() throws Exception {
    RECRUITS.delete(FROM, FROM + 99);
  }

  @AfterEach
  void disarm() throws Exception {
    TestDatabase.execute(
        """
        DROP TRIGGER IF EXISTS loomlab_test_conflict ON recruit_skill;
        DROP FUNCTION IF EXISTS loomlab_test_conflict();
        DROP SEQUENCE IF EXISTS loomlab_test_conflict;
        """);
  }

  /** The next {@code times} writes of skills in this test's range fail as deadlock victims. */
  private static void conflict(int times) throws Exception {
    TestDatabase.execute(
        """
        DROP TRIGGER IF EXISTS loomlab_test_conflict ON recruit_skill;
        DROP SEQUENCE IF EXISTS loomlab_test_conflict;
        CREATE SEQUENCE loomlab_test_conflict;
        CREATE OR REPLACE FUNCTION loomlab_test_conflict() RETURNS trigger AS $$
        BEGIN
          IF NEW.recruit_id BETWEEN %d AND %d AND nextval('loomlab_test_conflict') <= %d THEN
            RAISE EXCEPTION 'injected deadlock (test trigger)' USING ERRCODE = 'deadlock_detected';
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER loomlab_test_conflict BEFORE INSERT OR UPDATE ON recruit_skill
          FOR EACH ROW EXECUTE FUNCTION loomlab_test_conflict();
        """
            .formatted(FROM, FROM + 99, times));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "worker, sequential, 0",
    "virtual, parallel, 10",
    "reactive, sequential, 20",
    "reactive, parallel, 30"
  })
  void aConflictIsRetriedAndTheChunkLands(String mode, String writes, long offset)
      throws Exception {
    long from = FROM + offset;
    double before = conflicts("retried");
    conflict(1);
    RECRUITS.post(mode, writes, TestRecords.recruits(from, 4)).then().statusCode(200);
    RECRUITS.assertRows(from, from + 9, 4, 12, 4, 4);
    assertThat(conflicts("retried") - before, equalTo(1.0));
  }

  @ParameterizedTest(name = "{0} {1}")
  @CsvSource({
    "worker, sequential, 40, 0",
    "virtual, sequential, 50, 0",
    "reactive, sequential, 60, 0",
    "virtual, parallel, 70, 4",
    "reactive, parallel, 80, 4"
  })
  void conflictsPastTheRetriesAreRefusedWithNothingOfTheTransactionKept(
      String mode, String writes, long offset, int parentsKept) throws Exception {
    long from = FROM + offset;
    double before = conflicts("refused");
    conflict(1_000);
    RECRUITS
        .post(mode, writes, TestRecords.recruits(from, 4))
        .then()
        .statusCode(503)
        .contentType("application/problem+json")
        .header("Retry-After", "1")
        .body("type", equalTo("urn:loomlab:problem:write-conflict"))
        .body("failed", contains("recruit_skill"))
        .body("detail", containsString("SQLState 40P01"))
        .body("detail", not(containsString("Exception")));
    // Sequential: one transaction, nothing kept. Parallel: the parent and the other children
    // committed, the skills did not.
    RECRUITS.assertRows(from, from + 9, parentsKept, 0, parentsKept, parentsKept);
    assertThat(conflicts("refused") - before, equalTo(1.0));
  }

  private static double conflicts(String outcome) {
    String m = given().get("/q/metrics").then().statusCode(200).extract().asString();
    double n =
        PrometheusText.sum(
            m,
            "loomlab_ingest_conflicts_total",
            "domain=\"recruits\"",
            "table=\"recruit_skill\"",
            "outcome=\"" + outcome + "\"");
    return Double.isNaN(n) ? 0 : n;
  }
}
