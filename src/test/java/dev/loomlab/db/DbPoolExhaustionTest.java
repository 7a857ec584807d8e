package dev.loomlab.db;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Without the bulkhead the pool's own acquisition timeout (for requests) bounds the wait, in both
 * modes.
 */
@QuarkusTest
@TestProfile(DbPoolExhaustionTest.TinyPoolNoBulkhead.class)
class DbPoolExhaustionTest {

  public static class TinyPoolNoBulkhead implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "quarkus.datasource.jdbc.max-size", "2",
          "loomlab.db.acquisition-timeout", "300ms",
          "loomlab.execution.max-wait", "300ms",
          "loomlab.db.bulkhead.enabled", "false");
    }
  }

  @Test
  void floodOfVirtualThreadsTimesOutOnThePool() throws Exception {
    OverloadProbe.assertFloodIsBounded("virtual", false);
  }

  @Test
  void floodOfWorkerThreadsTimesOutOnThePool() throws Exception {
    OverloadProbe.assertFloodIsBounded("worker", false);
  }

  /** The reactive pool keeps its bulkhead and waits the requests' budget, 300 ms. */
  @Test
  void floodOnTheEventLoopTimesOutOnTheReactivePool() throws Exception {
    OverloadProbe.assertFloodIsBounded("reactive", false);
  }
}
