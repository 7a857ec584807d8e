package dev.loomlab.ingest;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.lessThan;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import java.sql.Connection;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A row held by another transaction (a migration, an operator's console, a stuck writer) does not
 * hold a writer forever with its permit and connection: past {@code loomlab.db.lock-timeout} (2 s)
 * it answers 503 {@code write-conflict}, in every mode and strategy, and writes nothing.
 */
@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class LockedRowTest {

  private static final IngestClient RECRUITS = IngestClient.RECRUITS;

  @Test
  @ShouldNotPin
  void writerOfALockedRowAnswersWithinItsLockTimeout() throws Exception {
    long id = 1_060_000;
    RECRUITS.delete(id, id + 1);
    RECRUITS
        .post("worker", "sequential", List.of(TestRecords.recruit(id, List.of("java"))))
        .then()
        .statusCode(200);
    try (Connection holder = TestDatabase.connect()) {
      holder.setAutoCommit(false);
      try (Statement s = holder.createStatement()) {
        s.execute("SELECT 1 FROM recruit WHERE id = " + id + " FOR UPDATE");
      }
      for (List<String> s :
          List.of(
              List.of("worker", "sequential"),
              List.of("worker", "parallel"),
              List.of("virtual", "copy"),
              List.of("reactive", "sequential"),
              List.of("reactive", "parallel"))) {
        Map<String, Object> changed = TestRecords.recruit(id, List.of("go"));
        Map<String, Object> fresh = TestRecords.recruit(id + 1, List.of("go"));
        long start = System.nanoTime();
        Response r = RECRUITS.post(s.get(0), s.get(1), List.of(fresh, changed));
        long millis = (System.nanoTime() - start) / 1_000_000;
        String why = s + " answered " + r.statusCode() + " in " + millis + " ms: " + r.asString();
        assertThat(why, r.statusCode(), equalTo(503));
        assertThat(why, r.path("type"), equalTo("urn:loomlab:problem:write-conflict"));
        assertThat(why, r.path("detail"), containsString("loomlab.db.lock-timeout"));
        assertThat(why, r.getHeader("Retry-After"), equalTo("1"));
        // The lock timeout, plus the request's own work, far from the minutes of no bound.
        assertThat(why, millis, lessThan(30_000L));
        // The parent of the fresh record came before the locked one in the same statement: rolled
        // back with it (sequential) or never committed past the parent (parallel writes the parent
        // first, in its own transaction).
        assertThat(why, TestDatabase.count("recruit", "recruit", id + 1, id + 1), equalTo(0));
      }
      holder.rollback();
    }
    RECRUITS.assertRows(id, id, 1, 1, 1, 1);
  }
}
