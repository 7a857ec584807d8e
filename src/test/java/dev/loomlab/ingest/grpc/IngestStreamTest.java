package dev.loomlab.ingest.grpc;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import com.google.protobuf.Message;
import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.TestRecords;
import dev.loomlab.ingest.grpc.StreamClient.Call;
import dev.loomlab.ingest.grpc.StreamClient.Outcome;
import dev.loomlab.ingest.grpc.v1.ChunkAck;
import dev.loomlab.ingest.grpc.v1.TableWrite;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Seed D's gRPC stream of chunks ({@code ingest.proto}) for both domains: every mode and strategy
 * acknowledged after the commit with the rows of the REST answer, a replay across transports
 * converging, every bad input ending the call with its status and writing nothing of its chunk, and
 * a stream cut mid-chunk keeping exactly the acknowledged chunks.
 */
@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class IngestStreamTest {

  static final List<String> STRATEGIES = List.of("sequential", "parallel", "copy");
  private static StreamClient client;

  @BeforeAll
  static void connect() {
    client = new StreamClient();
  }

  @AfterAll
  static void disconnect() {
    client.close();
  }

  static Stream<IngestClient> domains() {
    return Stream.of(IngestClient.RECRUITS, IngestClient.CANDIDATES);
  }

  /** Ids of this class, apart from every other test's. */
  static long base(IngestClient domain) {
    return domain == IngestClient.RECRUITS ? 1_030_000 : 2_030_000;
  }

  @ParameterizedTest
  @MethodSource("domains")
  void workerStreamAcknowledgesEveryChunkAfterItsCommit(IngestClient domain) throws Exception {
    for (int i = 0; i < STRATEGIES.size(); i++) {
      roundTrip(domain, "worker", STRATEGIES.get(i), base(domain) + 100 * i);
    }
  }

  @ParameterizedTest
  @MethodSource("domains")
  @ShouldNotPin
  void virtualStreamAcknowledgesEveryChunkAfterItsCommit(IngestClient domain) throws Exception {
    for (int i = 0; i < STRATEGIES.size(); i++) {
      roundTrip(domain, "virtual", STRATEGIES.get(i), base(domain) + 300 + 100 * i);
    }
  }

  @ParameterizedTest
  @MethodSource("domains")
  @ShouldNotPin
  void virtualLoopStreamAcknowledgesEveryChunkAfterItsCommit(IngestClient domain) throws Exception {
    for (int i = 0; i < STRATEGIES.size(); i++) {
      roundTrip(domain, "virtual-loop", STRATEGIES.get(i), base(domain) + 5_300 + 100 * i);
    }
  }

  @ParameterizedTest
  @MethodSource("domains")
  void replayAcrossTransportsConvergesToTheSameRows(IngestClient domain) throws Exception {
    long from = base(domain) + 600;
    domain.delete(from, from + 99);
    domain.post("worker", "sequential", records(domain, from, 5)).then().statusCode(200);
    Outcome again =
        client.stream(
            Chunks.method(domain),
            metadata("virtual", "parallel"),
            List.of(chunk(domain, 1, from, 5)));
    assertThat(again.message(), again.code(), equalTo(0));
    domain.assertRows(from, from + 99, 5, 15, 5, 5);
  }

  @ParameterizedTest
  @MethodSource("domains")
  void invalidChunkEndsTheCallListingEveryViolationAndWritesNothingOfIt(IngestClient domain)
      throws Exception {
    long from = base(domain) + 700;
    domain.delete(from, from + 99);
    List<Map<String, Object>> bad = records(domain, from + 10, 3);
    bad.get(1).put("embedding", List.of(0.5, 0.5));
    bad.get(2).put("skills", List.of(Map.of("name", "java", "level", 9)));
    Outcome o =
        client.stream(
            Chunks.method(domain),
            metadata("worker", "sequential"),
            List.of(
                chunk(domain, 1, from, 3),
                Chunks.of(domain, 2, bad),
                chunk(domain, 3, from + 20, 3)));

    assertThat(o.acks().stream().map(ChunkAck::getSequence).toList(), contains(1L));
    assertThat(o.message(), o.code(), equalTo(3)); // INVALID_ARGUMENT
    assertThat(o.type(), equalTo("urn:loomlab:problem:invalid-input"));
    assertThat(o.info().getReason(), equalTo("INVALID_INPUT"));
    assertThat(o.info().getMetadataOrThrow("sequence"), equalTo("2"));
    assertThat(
        o.fields(),
        contains(domain.domain() + "[1].embedding", domain.domain() + "[2].skills[0].level"));
    assertThat(o.message(), containsString("nothing of it was written"));
    // The acknowledged chunk is kept; nothing of the invalid one or of what followed it.
    domain.assertRows(from, from + 9, 3, 9, 3, 3);
    domain.assertNothingIn(from + 10, from + 99);
  }

  @ParameterizedTest
  @MethodSource("domains")
  void oversizedAndEmptyChunksAreInvalid(IngestClient domain) throws Exception {
    // 1,001 ids of their own: no other test of the class writes in [from, from + 1,001].
    long from = base(domain) + 5_000;
    domain.delete(from, from + 1_001);
    Outcome big =
        client.stream(
            Chunks.method(domain),
            metadata("virtual", "copy"),
            List.of(chunk(domain, 7, from, 1_001)));
    // Refused by the scan of the message's wire form, before protobuf builds its records.
    assertThat(big.message(), big.code(), equalTo(3));
    assertThat(
        big.message(),
        containsString(
            "at most 1000 " + domain.domain() + " per chunk (loomlab.ingest.max-chunk)"));
    Outcome empty =
        client.stream(
            Chunks.method(domain), metadata("worker", "parallel"), List.of(chunk(domain, 8, 0, 0)));
    assertThat(empty.code(), equalTo(3));
    assertThat(empty.fields(), contains(domain.domain()));
    domain.assertNothingIn(from, from + 1_001);
  }

  @ParameterizedTest
  @MethodSource("domains")
  void badMetadataIsRefusedBeforeAnyChunk(IngestClient domain) throws Exception {
    long from = base(domain) + 2_000;
    List<Message> chunks = List.of(chunk(domain, 1, from, 2));
    Outcome noMode = client.stream(Chunks.method(domain), Map.of("loomlab-writes", "copy"), chunks);
    assertThat(noMode.code(), equalTo(3));
    assertThat(noMode.fields(), contains("loomlab-mode"));
    assertThat(noMode.message(), containsString("loomlab-mode is required"));
    Outcome badWrites = client.stream(Chunks.method(domain), metadata("worker", "bulk"), chunks);
    assertThat(badWrites.code(), equalTo(3));
    assertThat(
        badWrites.message(),
        containsString("loomlab-writes must be one of [sequential, parallel, copy]"));
    assertThat(badWrites.acks(), empty());
    domain.assertNothingIn(from, from + 99);
  }

  @ParameterizedTest
  @MethodSource("domains")
  void malformedMessageEndsTheCallWithInvalidArgument(IngestClient domain) throws Exception {
    Call call = client.open(Chunks.method(domain), metadata("worker", "sequential"));
    // Field 2 (the records) announced as 100 bytes long, but the message ends after 3.
    call.sendRaw(StreamClient.frame(new byte[] {0x12, 100, 1, 2, 3}));
    call.end();
    Outcome o = call.outcome();
    assertThat(o.code(), equalTo(3));
    assertThat(o.type(), equalTo("urn:loomlab:problem:invalid-input"));
    assertThat(o.message(), containsString("malformed protobuf"));
  }

  @ParameterizedTest
  @MethodSource("domains")
  @ShouldNotPin
  void cutStreamKeepsTheAcknowledgedChunksAndNothingOfTheCutOne(IngestClient domain)
      throws Exception {
    long from = base(domain) + 900;
    domain.delete(from, from + 99);
    Call call = client.open(Chunks.method(domain), metadata("virtual", "parallel"));
    call.send(chunk(domain, 1, from, 4));
    assertThat(call.nextAck().getSequence(), equalTo(1L));
    byte[] second = StreamClient.frame(chunk(domain, 2, from + 10, 4).toByteArray()).getBytes();
    call.sendRaw(Buffer.buffer(Arrays.copyOf(second, second.length / 2)));
    call.cut();
    domain.assertRows(from, from + 9, 4, 12, 4, 4);
    domain.assertNothingIn(from + 10, from + 99);

    // A client that cuts right after sending a whole chunk does not know whether it landed: it
    // resends from the first unacknowledged chunk, and the rows converge.
    Call again = client.open(Chunks.method(domain), metadata("virtual", "parallel"));
    again.send(chunk(domain, 2, from + 10, 4));
    again.cut();
    Outcome resent =
        client.stream(
            Chunks.method(domain),
            metadata("worker", "sequential"),
            List.of(chunk(domain, 2, from + 10, 4), chunk(domain, 3, from + 20, 4)));
    assertThat(resent.message(), resent.code(), equalTo(0));
    domain.assertRows(from, from + 99, 12, 36, 12, 12);
  }

  private void roundTrip(IngestClient domain, String mode, String writes, long from)
      throws Exception {
    domain.delete(from, from + 99);
    Outcome o =
        client.stream(
            Chunks.method(domain),
            metadata(mode, writes),
            List.of(
                chunk(domain, 1, from, 3),
                chunk(domain, 2, from + 3, 3),
                chunk(domain, 3, from + 6, 3)));
    assertThat(o.message(), o.code(), equalTo(0));
    assertThat(o.acks().stream().map(ChunkAck::getSequence).toList(), contains(1L, 2L, 3L));
    for (ChunkAck ack : o.acks()) {
      assertThat(ack.getRecords(), equalTo(3));
      assertThat(ack.getMode(), equalTo(mode));
      assertThat(ack.getWrites(), equalTo(writes));
      assertThat(ack.getVirtual(), equalTo(mode.startsWith("virtual")));
      if (mode.equals("worker")) {
        assertThat(ack.getThread(), startsWith("executor-thread-"));
      }
      assertThat(
          ack.getTablesList().stream().map(TableWrite::getTable).toList(),
          equalTo(domain.tables()));
      assertThat(
          ack.getTablesList().stream().map(TableWrite::getRole).toList(),
          contains(
              TableWrite.Role.PARENT,
              TableWrite.Role.SKILL,
              TableWrite.Role.TEXT,
              TableWrite.Role.EMBEDDING));
      assertThat(
          ack.getTablesList().stream().map(TableWrite::getRows).toList(), contains(3, 9, 3, 3));
    }
    domain.assertRows(from, from + 99, 9, 27, 9, 9);
    // Stored as the REST batch stores it: the same record reads back the same.
    Map<String, Object> sent = records(domain, from + 4, 1).get(0);
    String text = domain == IngestClient.RECRUITS ? "description" : "profile";
    given()
        .get("/api/" + mode + "/" + domain.domain() + "/" + (from + 4))
        .then()
        .statusCode(200)
        .body("skills.name", contains("java", "k8s", "sql"))
        .body(text, equalTo(sent.get(text)))
        .body("location", equalTo(sent.get("location")))
        .body("embeddingDimension", equalTo(384));
  }

  static Map<String, String> metadata(String mode, String writes) {
    return Chunks.metadata(mode, writes);
  }

  static List<Map<String, Object>> records(IngestClient domain, long from, int count) {
    return new ArrayList<>(
        domain == IngestClient.RECRUITS
            ? TestRecords.recruits(from, count)
            : TestRecords.candidates(from, count));
  }

  static Message chunk(IngestClient domain, long sequence, long from, int count) {
    return Chunks.of(domain, sequence, records(domain, from, count));
  }
}
