package dev.loomlab.ingest.grpc;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;

import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.grpc.StreamClient.Outcome;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A chunk message over {@code loomlab.ingest.grpc.max-message-size} ends the call with {@code
 * RESOURCE_EXHAUSTED} before it is read; nothing of it is written.
 */
@QuarkusTest
@TestProfile(StreamMessageSizeTest.SmallMessages.class)
class StreamMessageSizeTest {

  public static class SmallMessages implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      // 50 recruits of 384 floats each are about 80 KB.
      return Map.of("loomlab.ingest.grpc.max-message-size", "32K");
    }
  }

  @Test
  void oversizedMessageIsRefusedUnread() throws Exception {
    IngestClient recruits = IngestClient.RECRUITS;
    long from = 1_040_000;
    recruits.delete(from, from + 99);
    try (StreamClient client = new StreamClient()) {
      Outcome o =
          client.stream(
              "WriteRecruits",
              Chunks.metadata("virtual", "sequential"),
              List.of(Chunks.of(recruits, 1, IngestStreamTest.records(recruits, from, 50))));
      assertThat(o.message(), o.code(), equalTo(8)); // RESOURCE_EXHAUSTED
      assertThat(o.type(), equalTo("urn:loomlab:problem:invalid-input"));
      assertThat(o.message(), containsString("loomlab.ingest.grpc.max-message-size"));
      assertThat(o.acks(), empty());
    }
    recruits.assertNothingIn(from, from + 99);
  }
}
