package dev.loomlab.db;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Far more requests than connections: each waits at most its bounded wait, then 503 with
 * Retry-After; nobody hangs, and the service serves again as soon as the flood is over.
 */
@QuarkusTest
@TestProfile(DbOverloadTest.TinyPool.class)
class DbOverloadTest {

  public static class TinyPool implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "quarkus.datasource.jdbc.max-size", "2",
          "loomlab.db.acquisition-timeout", "300ms",
          "loomlab.db.bulkhead.max-wait", "300ms");
    }
  }

  @Test
  void floodOfVirtualThreadsGetsBoundedWaitsAndServiceUnavailable() throws Exception {
    OverloadProbe.assertFloodIsBounded("virtual", true);
  }

  @Test
  void floodOfWorkerThreadsGetsBoundedWaitsAndServiceUnavailable() throws Exception {
    OverloadProbe.assertFloodIsBounded("worker", true);
  }

  /** The reactive pool has the same 2 connections and waits the same 300 ms. */
  @Test
  void floodOnTheEventLoopGetsBoundedWaitsAndServiceUnavailable() throws Exception {
    OverloadProbe.assertFloodIsBounded("reactive", true);
  }
}
