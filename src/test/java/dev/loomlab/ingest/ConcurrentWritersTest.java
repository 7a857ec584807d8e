package dev.loomlab.ingest;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Message;
import dev.loomlab.db.OverloadProbe;
import dev.loomlab.db.OverloadProbe.Answer;
import dev.loomlab.ingest.grpc.Chunks;
import dev.loomlab.ingest.grpc.StreamClient;
import dev.loomlab.ingest.grpc.StreamClient.Call;
import dev.loomlab.ingest.grpc.StreamClient.Outcome;
import io.quarkus.test.junit.QuarkusTest;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * Concurrent producers of the same rows: {@value #WRITERS} posts of one chunk at once, half of them
 * with the records in reverse order. Each succeeds, or gets a retryable 503 ({@code
 * write-conflict}; or {@code overloaded} when a busy machine kept a request from its thread past
 * the bounded wait); never a 500. After a replay of the refused ones, the rows are exactly the
 * chunk's. The same holds over the gRPC stream.
 */
@QuarkusTest
class ConcurrentWritersTest {

  static final int WRITERS = 8;
  static final int RECORDS = 200;
  static final List<String> RETRYABLE =
      List.of("urn:loomlab:problem:write-conflict", "urn:loomlab:problem:overloaded");
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest(name = "{0} {1} {2}")
  @CsvSource({
    "recruits, worker, sequential, 1010000",
    "recruits, virtual, sequential, 1010300",
    "recruits, worker, parallel, 1010600",
    "recruits, virtual, parallel, 1010900",
    "recruits, worker, copy, 1011200",
    "recruits, virtual, copy, 1011500",
    "candidates, worker, sequential, 2010000",
    "candidates, virtual, parallel, 2010300",
    "candidates, virtual, copy, 2010600",
    "recruits, reactive, sequential, 1013000",
    "recruits, reactive, parallel, 1013300",
    "candidates, reactive, parallel, 2013000"
  })
  void overlappingChunksInOppositeOrdersAllLandExactly(
      String domain, String mode, String writes, long from) throws Exception {
    IngestClient client =
        domain.equals("recruits") ? IngestClient.RECRUITS : IngestClient.CANDIDATES;
    long to = from + RECORDS - 1;
    client.delete(from, to);
    List<Map<String, Object>> chunk =
        domain.equals("recruits")
            ? TestRecords.recruits(from, RECORDS)
            : TestRecords.candidates(from, RECORDS);
    String forward = JSON.writeValueAsString(chunk);
    String reversed = JSON.writeValueAsString(chunk.reversed());
    List<String> bodies = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      bodies.add(i % 2 == 0 ? forward : reversed);
    }

    List<Answer> answers =
        OverloadProbe.post("/api/" + mode + "/" + domain + "/batch?writes=" + writes, bodies);

    // A failure prints every answer: its status, problem type, queue and detail.
    String why = "answers: " + answers;
    List<Answer> unexpected =
        answers.stream().filter(a -> a.status() != 200 && !isRetryable(a)).toList();
    assertThat("only 200 or a retryable 503; " + why, unexpected, empty());
    assertThat(why, answers.stream().filter(a -> a.status() == 200).count(), greaterThan(0L));
    for (Answer a : answers) {
      if (a.status() == 503) {
        assertThat(why, a.retryAfter(), equalTo("1"));
        assertThat(why, a.contentType(), equalTo("application/problem+json"));
      }
    }
    if (answers.stream().anyMatch(ConcurrentWritersTest::isRetryable)) {
      client.post(mode, writes, chunk).then().statusCode(200);
    }
    client.assertRows(from, to, RECORDS, 3 * RECORDS, RECORDS, RECORDS);
  }

  private static boolean isRetryable(Answer a) {
    return a.status() == 503 && RETRYABLE.contains(a.type());
  }

  /**
   * The same over the gRPC stream: {@value #WRITERS} streams of the same chunk at once, half of
   * them reversed; each is acknowledged, or ends UNAVAILABLE with a retryable problem type.
   */
  @ParameterizedTest(name = "gRPC {0} {1} {2}")
  @CsvSource({
    "recruits, worker, parallel, 1012000",
    "recruits, virtual, sequential, 1012300",
    "candidates, worker, copy, 2011000",
    "candidates, virtual, parallel, 2011300"
  })
  void overlappingStreamsInOppositeOrdersAllLandExactly(
      String domain, String mode, String writes, long from) throws Exception {
    IngestClient client =
        domain.equals("recruits") ? IngestClient.RECRUITS : IngestClient.CANDIDATES;
    long to = from + RECORDS - 1;
    client.delete(from, to);
    List<Map<String, Object>> records =
        domain.equals("recruits")
            ? TestRecords.recruits(from, RECORDS)
            : TestRecords.candidates(from, RECORDS);
    Message forward = Chunks.of(client, 1, records);
    Message reversed = Chunks.of(client, 1, records.reversed());
    try (StreamClient streams = new StreamClient()) {
      List<Call> calls = new ArrayList<>();
      for (int i = 0; i < WRITERS; i++) {
        Call call = streams.open(Chunks.method(client), Chunks.metadata(mode, writes));
        call.send(i % 2 == 0 ? forward : reversed);
        call.end();
        calls.add(call);
      }
      List<Outcome> outcomes = new ArrayList<>();
      for (Call call : calls) {
        outcomes.add(call.outcome());
      }
      List<Outcome> unexpected =
          outcomes.stream()
              .filter(o -> o.code() != 0 && !(o.code() == 14 && RETRYABLE.contains(o.type())))
              .toList();
      assertThat("only OK or a retryable UNAVAILABLE", unexpected, empty());
      assertThat(outcomes.stream().filter(o -> o.code() == 0).count(), greaterThan(0L));
      for (Outcome o : outcomes) {
        if (o.code() == 14) {
          assertThat(o.retry().getRetryDelay().getSeconds(), equalTo(1L));
        } else {
          assertThat(o.acks().size(), equalTo(1));
        }
      }
      if (outcomes.stream().anyMatch(o -> o.code() != 0)) {
        Outcome replay =
            streams.stream(Chunks.method(client), Chunks.metadata(mode, writes), List.of(forward));
        assertThat(replay.message(), replay.code(), equalTo(0));
      }
    }
    client.assertRows(from, to, RECORDS, 3 * RECORDS, RECORDS, RECORDS);
  }
}
