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
import dev.loomlab.ingest.grpc.Chunks;
import dev.loomlab.ingest.grpc.StreamClient;
import dev.loomlab.ingest.grpc.StreamClient.Outcome;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the seed left open: a child write fails after the parent committed. A test-only trigger
 * fails the first description write it sees (a sequence survives the rollback, so it fails once).
 */
@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class PartialWriteTest {

  static final long FROM = 1_002_000;

  @BeforeEach
  void armFailure() throws Exception {
    RECRUITS.delete(FROM, FROM + 99);
    TestDatabase.execute(
        """
        DROP TRIGGER IF EXISTS loomlab_test_fail_once ON recruit_description;
        DROP SEQUENCE IF EXISTS loomlab_test_fail_once;
        CREATE SEQUENCE loomlab_test_fail_once;
        CREATE OR REPLACE FUNCTION loomlab_test_fail_once() RETURNS trigger AS $$
        BEGIN
          IF NEW.recruit_id BETWEEN %d AND %d AND nextval('loomlab_test_fail_once') = 1 THEN
            RAISE EXCEPTION 'injected failure (test trigger)';
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql;
        CREATE TRIGGER loomlab_test_fail_once BEFORE INSERT OR UPDATE ON recruit_description
          FOR EACH ROW EXECUTE FUNCTION loomlab_test_fail_once();
        """
            .formatted(FROM, FROM + 99));
  }

  @AfterEach
  void disarm() throws Exception {
    TestDatabase.execute(
        """
        DROP TRIGGER IF EXISTS loomlab_test_fail_once ON recruit_description;
        DROP FUNCTION IF EXISTS loomlab_test_fail_once();
        DROP SEQUENCE IF EXISTS loomlab_test_fail_once;
        """);
  }

  @Test
  void childDataTheDatabaseRefusesIsNotCalledReplayable() throws Exception {
    // The database refusing the description's data itself (a data exception, as U+0000 was before
    // validation refused it): a replay meets the same refusal, and the answer says so.
    TestDatabase.execute(
        """
        CREATE OR REPLACE FUNCTION loomlab_test_fail_once() RETURNS trigger AS $$
        BEGIN
          IF NEW.recruit_id BETWEEN %d AND %d THEN
            RAISE EXCEPTION 'refused (test trigger)' USING ERRCODE = '22021';
          END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql;
        """
            .formatted(FROM, FROM + 99));
    for (String mode : new String[] {"worker", "virtual", "reactive"}) {
      long from = FROM + (mode.equals("worker") ? 80 : mode.equals("virtual") ? 85 : 90);
      RECRUITS
          .post(mode, "parallel", TestRecords.recruits(from, 2))
          .then()
          .statusCode(500)
          .contentType("application/problem+json")
          .body("type", equalTo("urn:loomlab:problem:partial-write-refused"))
          .body("failed", contains("recruit_description"))
          .body("detail", containsString("a replay of the same chunk meets the same refusal"));
    }
  }

  @Test
  void parallelChildFailureNamesTheTableAndAReplayConverges() throws Exception {
    for (String mode : new String[] {"worker", "virtual", "reactive"}) {
      long from =
          switch (mode) {
            case "worker" -> FROM;
            case "virtual" -> FROM + 50;
            default -> FROM + 20;
          };
      TestDatabase.execute("ALTER SEQUENCE loomlab_test_fail_once RESTART");
      RECRUITS
          .post(mode, "parallel", TestRecords.recruits(from, 4))
          .then()
          .statusCode(500)
          .contentType("application/problem+json")
          .body("type", equalTo("urn:loomlab:problem:partial-write"))
          .body("failed", contains("recruit_description"));
      // The parent and the two other children committed; the description did not.
      RECRUITS.assertRows(from, from + 9, 4, 12, 0, 4);

      RECRUITS.post(mode, "parallel", TestRecords.recruits(from, 4)).then().statusCode(200);
      // Exactly what one successful sequential write gives: nothing missing, nothing doubled.
      RECRUITS.assertRows(from, from + 9, 4, 12, 4, 4);
      given()
          .get("/api/" + (mode.equals("reactive") ? "virtual" : mode) + "/recruits/" + (from + 3))
          .then()
          .statusCode(200)
          .body("description", equalTo("We are hiring number " + (from + 3)));
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"virtual", "reactive"})
  void sequentialFailureWritesNothing(String mode) throws Exception {
    RECRUITS
        .post(mode, "sequential", TestRecords.recruits(FROM, 4))
        .then()
        .statusCode(500)
        .contentType("application/problem+json")
        // The trigger's RAISE EXCEPTION: SQLState P0001, no Java class name.
        .body("type", equalTo("urn:loomlab:problem:database-error"))
        .body("detail", containsString("SQLState P0001"));
    RECRUITS.assertNothingIn(FROM, FROM + 99);
    RECRUITS.post(mode, "sequential", TestRecords.recruits(FROM, 4)).then().statusCode(200);
    RECRUITS.assertRows(FROM, FROM + 99, 4, 12, 4, 4);
  }

  @Test
  @ShouldNotPin
  void overTheStreamAPartialWriteEndsTheCallWithItsTablesAndAResendConverges() throws Exception {
    long from = FROM + 70;
    TestDatabase.execute("ALTER SEQUENCE loomlab_test_fail_once RESTART");
    try (StreamClient stream = new StreamClient()) {
      Outcome failed =
          stream.stream(
              "WriteRecruits",
              Chunks.metadata("virtual", "parallel"),
              List.of(Chunks.of(RECRUITS, 5, TestRecords.recruits(from, 4))));
      assertThat(failed.code(), equalTo(13)); // INTERNAL
      assertThat(failed.type(), equalTo("urn:loomlab:problem:partial-write"));
      assertThat(failed.info().getMetadataOrThrow("tables"), equalTo("recruit_description"));
      assertThat(failed.info().getMetadataOrThrow("sequence"), equalTo("5"));
      assertThat(failed.message(), not(containsString("Exception")));
      RECRUITS.assertRows(from, from + 9, 4, 12, 0, 4);

      Outcome resent =
          stream.stream(
              "WriteRecruits",
              Chunks.metadata("virtual", "parallel"),
              List.of(Chunks.of(RECRUITS, 5, TestRecords.recruits(from, 4))));
      assertThat(resent.message(), resent.code(), equalTo(0));
      RECRUITS.assertRows(from, from + 9, 4, 12, 4, 4);
    }
  }
}
