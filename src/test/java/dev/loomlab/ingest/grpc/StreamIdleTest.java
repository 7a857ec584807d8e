package dev.loomlab.ingest.grpc;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

import com.google.protobuf.Message;
import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.grpc.StreamClient.Call;
import dev.loomlab.ingest.grpc.StreamClient.Outcome;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A stream whose client goes quiet after an acknowledgement ends {@code DEADLINE_EXCEEDED} after
 * {@code loomlab.ingest.grpc.idle-timeout}, instead of being held open for ever, and a call whose
 * client gave it a deadline ({@code grpc-timeout}) ends at that deadline; what was acknowledged
 * stays committed. A deadline not of gRPC's form is refused.
 *
 * <p>The same timeout bounds the wait for a stream's first chunk, a path this test does not
 * measure: a whole stream first loads the classes of both ends and the quiet stream's chunk is
 * built before it opens, so a slow first send on a busy machine is not taken for the quiet this
 * test is about; the timeout is a few seconds, not one.
 */
@QuarkusTest
@TestProfile(StreamIdleTest.ShortIdle.class)
class StreamIdleTest {

  public static class ShortIdle implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of("loomlab.ingest.grpc.idle-timeout", "5s");
    }
  }

  @Test
  void quietStreamEndsAfterItsIdleTimeout() throws Exception {
    IngestClient recruits = IngestClient.RECRUITS;
    long warm = 1_070_900;
    long from = 1_071_000;
    recruits.delete(warm, warm + 9);
    recruits.delete(from, from + 9);
    Map<String, String> metadata = Chunks.metadata("virtual", "sequential");
    try (StreamClient client = new StreamClient()) {
      Outcome whole =
          client.stream(
              "WriteRecruits", metadata, List.of(IngestStreamTest.chunk(recruits, 1, warm, 1)));
      assertThat(whole.message(), whole.code(), equalTo(0));
      Message chunk = IngestStreamTest.chunk(recruits, 1, from, 2);
      Call call = client.open("WriteRecruits", metadata);
      call.send(chunk);
      assertThat(call.nextAck().getSequence(), equalTo(1L));
      // Then nothing: no chunk, no end.
      Outcome o = call.outcome();
      assertThat(o.message(), o.code(), equalTo(4)); // DEADLINE_EXCEEDED
      assertThat(o.message(), containsString("loomlab.ingest.grpc.idle-timeout"));
    }
    recruits.assertRows(from, from + 9, 2, 6, 2, 2);
  }

  @Test
  void streamEndsAtTheDeadlineItsClientGave() throws Exception {
    IngestClient recruits = IngestClient.RECRUITS;
    long from = 1_071_100;
    recruits.delete(from, from + 9);
    long warm = 1_071_190;
    recruits.delete(warm, warm + 9);
    Map<String, String> metadata = new HashMap<>(Chunks.metadata("virtual", "sequential"));
    try (StreamClient client = new StreamClient()) {
      // Both ends warm first (as above), so that the chunk below is acknowledged in time.
      Outcome whole =
          client.stream(
              "WriteRecruits", metadata, List.of(IngestStreamTest.chunk(recruits, 1, warm, 1)));
      assertThat(whole.message(), whole.code(), equalTo(0));
      // Not past the idle timeout (5 s), which restarts at each acknowledgement: the deadline
      // always comes first.
      metadata.put("grpc-timeout", "4S");
      Call call = client.open("WriteRecruits", metadata);
      call.send(IngestStreamTest.chunk(recruits, 1, from, 2));
      assertThat(call.nextAck().getSequence(), equalTo(1L));
      Outcome o = call.outcome();
      assertThat(o.message(), o.code(), equalTo(4)); // DEADLINE_EXCEEDED
      assertThat(o.message(), containsString("grpc-timeout 4000 ms"));
    }
    recruits.assertRows(from, from + 9, 2, 6, 2, 2);
  }

  @Test
  void aDeadlineNotOfGrpcsFormIsRefused() throws Exception {
    Map<String, String> metadata = new HashMap<>(Chunks.metadata("virtual", "sequential"));
    metadata.put("grpc-timeout", "1X");
    try (StreamClient client = new StreamClient()) {
      Outcome o = client.open("WriteRecruits", metadata).outcome();
      assertThat(o.message(), o.code(), equalTo(3)); // INVALID_ARGUMENT
      assertThat(o.message(), containsString("grpc-timeout"));
    }
  }
}
