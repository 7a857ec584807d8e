package dev.loomlab.ingest.grpc;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.grpc.StreamClient.Call;
import dev.loomlab.ingest.grpc.StreamClient.Outcome;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A stream whose client goes quiet after an acknowledgement ends {@code DEADLINE_EXCEEDED} after
 * {@code loomlab.ingest.grpc.idle-timeout}, instead of being held open for ever; what was
 * acknowledged stays committed.
 */
@QuarkusTest
@TestProfile(StreamIdleTest.ShortIdle.class)
class StreamIdleTest {

  public static class ShortIdle implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("loomlab.ingest.grpc.idle-timeout", "1s");
    }
  }

  @Test
  void quietStreamEndsAfterItsIdleTimeout() throws Exception {
    IngestClient recruits = IngestClient.RECRUITS;
    long from = 1_071_000;
    recruits.delete(from, from + 9);
    try (StreamClient client = new StreamClient()) {
      Call call = client.open("WriteRecruits", Chunks.metadata("virtual", "sequential"));
      call.send(IngestStreamTest.chunk(recruits, 1, from, 2));
      assertThat(call.nextAck().getSequence(), equalTo(1L));
      // Then nothing: no chunk, no end.
      Outcome o = call.outcome();
      assertThat(o.message(), o.code(), equalTo(4)); // DEADLINE_EXCEEDED
      assertThat(o.message(), containsString("loomlab.ingest.grpc.idle-timeout"));
    }
    recruits.assertRows(from, from + 9, 2, 6, 2, 2);
  }
}
