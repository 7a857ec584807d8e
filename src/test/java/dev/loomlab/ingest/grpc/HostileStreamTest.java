package dev.loomlab.ingest.grpc;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.google.protobuf.Timestamp;
import com.google.protobuf.UnknownFieldSet;
import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.grpc.StreamClient.Call;
import dev.loomlab.ingest.grpc.StreamClient.Outcome;
import dev.loomlab.ingest.grpc.v1.Recruit;
import dev.loomlab.ingest.grpc.v1.RecruitChunk;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.StreamResetException;
import java.io.ByteArrayOutputStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.zip.GZIPOutputStream;
import org.junit.jupiter.api.Test;

/**
 * Messages built to be expensive: compressed ones (a few MB of gzip inflate to gigabytes), chunks
 * of hundreds of thousands of tiny records or of one embedding of millions of floats, instants no
 * clock can hold. Each ends the call with its status, writes nothing, and leaves the service ready.
 */
@QuarkusTest
class HostileStreamTest {

  private static final IngestClient RECRUITS = IngestClient.RECRUITS;

  @Test
  void compressedMessagesAreRefusedUninflated() throws Exception {
    long id = 1_070_000;
    RECRUITS.delete(id, id);
    // 256 MB of zeros, under 300 KB once gzipped: far under the wire bound, far over it inflated.
    byte[] bomb = gzip(256 << 20);
    try (StreamClient client = new StreamClient()) {
      Call call = openGzipped(client, "virtual");
      sendIgnoringReset(call, compressedFrame(bomb));
      Outcome o = call.outcome();
      assertThat(o.message(), o.code(), equalTo(12)); // UNIMPLEMENTED
      assertThat(o.message(), containsString("compressed messages are not accepted"));
      assertThat(o.acks(), empty());
    }
    RECRUITS.assertNothingIn(id, id);
    assertReady();
  }

  @Test
  void aRefusedUploadIsStoppedNotDrained() throws Exception {
    long id = 1_070_020;
    RECRUITS.delete(id, id);
    // Four times the stream's first flow-control window (64 KiB): the refusal comes before it ends.
    byte[] bomb = gzip(256 << 20);
    try (StreamClient client = new StreamClient()) {
      Call call = openGzipped(client, "virtual-loop");
      CompletableFuture<Void> upload = call.upload(compressedFrame(bomb));
      assertThat(call.outcome().code(), equalTo(12));
      // Then the stream is reset (RST_STREAM NO_ERROR, RFC 9113 §8.1): the rest is not sent, and a
      // client that waits for its upload's end is not left waiting on the server's window.
      assertThrows(
          ExecutionException.class,
          () -> upload.get(StreamClient.PATIENCE.toSeconds(), TimeUnit.SECONDS));
    }
    RECRUITS.assertNothingIn(id, id);
    assertReady();
  }

  @Test
  void aFailedStreamStopsTheUploadBehindItAndFreesItsConnection() throws Exception {
    long id = 1_070_030;
    RECRUITS.delete(id, id + 9);
    try (StreamClient client = new StreamClient()) {
      Call call = client.open("WriteRecruits", Chunks.metadata("virtual", "sequential"));
      // A chunk the engine refuses (an embedding of two numbers), then four windows more behind it.
      List<Map<String, Object>> bad = IngestStreamTest.records(RECRUITS, id, 1);
      bad.get(0).put("embedding", List.of(0.5, 0.5));
      call.send(Chunks.of(RECRUITS, 1, bad));
      CompletableFuture<Void> upload = call.upload(Buffer.buffer(new byte[256 << 10]));
      assertThat(call.outcome().code(), equalTo(3)); // INVALID_ARGUMENT
      assertThrows(
          ExecutionException.class,
          () -> upload.get(StreamClient.PATIENCE.toSeconds(), TimeUnit.SECONDS));
      // The next call on the same connection goes through.
      Outcome next =
          client.stream(
              "WriteRecruits",
              Chunks.metadata("virtual", "sequential"),
              List.of(IngestStreamTest.chunk(RECRUITS, 1, id + 5, 1)));
      assertThat(next.message(), next.code(), equalTo(0));
    }
    RECRUITS.assertNothingIn(id, id + 4);
    RECRUITS.delete(id, id + 9);
    assertReady();
  }

  @Test
  void compressedFlagWithoutAnEncodingResetsTheCall() throws Exception {
    long id = 1_070_050;
    RECRUITS.delete(id, id);
    byte[] chunk = IngestStreamTest.chunk(RECRUITS, 1, id, 1).toByteArray();
    try (StreamClient client = new StreamClient()) {
      Call call = client.open("WriteRecruits", Chunks.metadata("worker", "sequential"));
      sendIgnoringReset(call, compressedFrame(gzip(chunk)));
      // Not an OK without the chunk (Vert.x alone drops such a message): the stream is reset.
      ExecutionException reset = assertThrows(ExecutionException.class, call::outcome);
      assertThat(reset.getCause(), instanceOf(StreamResetException.class));
    }
    RECRUITS.assertNothingIn(id, id);
    assertReady();
  }

  @Test
  void tinyRecordsPastTheChunkBoundAreRefusedUnparsed() throws Exception {
    RECRUITS.delete(1_070_100, 1_070_100);
    RecruitChunk.Builder chunk = RecruitChunk.newBuilder().setSequence(1);
    Recruit tiny = Recruit.newBuilder().setId(1_070_100).build();
    for (int i = 0; i < 200_000; i++) {
      chunk.addRecruits(tiny);
    }
    Outcome o = stream(chunk.build());
    assertThat(o.message(), o.code(), equalTo(3)); // INVALID_ARGUMENT
    assertThat(o.message(), containsString("at most 1000 recruits per chunk"));
    RECRUITS.assertNothingIn(1_070_100, 1_070_100);
    assertReady();
  }

  @Test
  void hugeEmbeddingIsRefusedUnparsed() throws Exception {
    RECRUITS.delete(1_070_200, 1_070_200);
    Recruit.Builder recruit = Recruit.newBuilder().setId(1_070_200).setCompany("c").setTitle("t");
    for (int i = 0; i < 2_000_000; i++) {
      recruit.addEmbedding(0.5f);
    }
    Outcome o = stream(RecruitChunk.newBuilder().setSequence(1).addRecruits(recruit).build());
    assertThat(o.message(), o.code(), equalTo(3));
    assertThat(o.message(), containsString("recruits[0].embedding: at most 384 values"));
    RECRUITS.assertNothingIn(1_070_200, 1_070_200);
    assertReady();
  }

  @Test
  void instantPastAnyClockIsAnInvalidArgument() throws Exception {
    long id = 1_070_300;
    RECRUITS.delete(id, id);
    Map<String, Object> record = IngestStreamTest.records(RECRUITS, id, 1).get(0);
    record.remove("postedAt");
    RecruitChunk.Builder chunk =
        ((RecruitChunk) Chunks.of(RECRUITS, 1, List.of(record))).toBuilder();
    chunk.setRecruits(
        0,
        chunk.getRecruits(0).toBuilder()
            .setPostedAt(Timestamp.newBuilder().setSeconds(Long.MAX_VALUE))
            .setDescription("a\u0000b"));
    Outcome o = stream(chunk.build());
    assertThat(o.message(), o.code(), equalTo(3));
    assertThat(o.fields(), hasItem("recruits[0].postedAt"));
    assertThat(o.fields(), hasItem("recruits[0].description"));
    RECRUITS.assertNothingIn(id, id);
  }

  @Test
  void timestampOutsideItsDocumentedRangeIsAnInvalidArgument() throws Exception {
    long id = 1_070_350;
    RECRUITS.delete(id, id + 1);
    RecruitChunk.Builder chunk =
        ((RecruitChunk) Chunks.of(RECRUITS, 1, IngestStreamTest.records(RECRUITS, id, 2)))
            .toBuilder();
    // Nanos outside 0-999,999,999, which Java would carry into the seconds and store.
    chunk.setRecruits(
        0,
        chunk.getRecruits(0).toBuilder()
            .setPostedAt(Timestamp.newBuilder().setSeconds(1_767_225_600).setNanos(-1)));
    chunk.setRecruits(
        1,
        chunk.getRecruits(1).toBuilder()
            .setPostedAt(Timestamp.newBuilder().setSeconds(1_767_225_600).setNanos(1_000_000_000)));
    Outcome o = stream(chunk.build());
    assertThat(o.message(), o.code(), equalTo(3));
    assertThat(o.fields(), hasItem("recruits[0].postedAt"));
    assertThat(o.fields(), hasItem("recruits[1].postedAt"));
    RECRUITS.assertNothingIn(id, id + 1);
  }

  @Test
  void aFieldTheSchemaDoesNotDefineIsAnInvalidArgumentNamed() throws Exception {
    long id = 1_070_400;
    RECRUITS.delete(id, id + 1);
    RecruitChunk.Builder chunk =
        ((RecruitChunk) Chunks.of(RECRUITS, 1, IngestStreamTest.records(RECRUITS, id, 2)))
            .toBuilder();
    // Field 99 on the second record's first skill: protobuf would set it aside, and the chunk
    // would be written without it.
    UnknownFieldSet unknown =
        UnknownFieldSet.newBuilder()
            .addField(99, UnknownFieldSet.Field.newBuilder().addVarint(1).build())
            .build();
    Recruit second = chunk.getRecruits(1);
    chunk.setRecruits(
        1,
        second.toBuilder().setSkills(0, second.getSkills(0).toBuilder().setUnknownFields(unknown)));
    Outcome o = stream(chunk.build());
    assertThat(o.message(), o.code(), equalTo(3));
    assertThat(o.message(), containsString("recruits[1].skills[0] has field 99"));
    RECRUITS.assertNothingIn(id, id + 1);
    Outcome top = stream(chunk.setRecruits(1, second).setUnknownFields(unknown).build());
    assertThat(top.message(), top.code(), equalTo(3));
    assertThat(top.message(), containsString("the chunk has field 99"));
    RECRUITS.assertNothingIn(id, id + 1);
  }

  private static Outcome stream(RecruitChunk chunk) throws Exception {
    try (StreamClient client = new StreamClient()) {
      Call call = client.open("WriteRecruits", Chunks.metadata("virtual", "parallel"));
      sendIgnoringReset(call, StreamClient.frame(chunk.toByteArray()));
      return call.outcome();
    }
  }

  /** A call of {@code mode} that says its messages come gzipped. */
  private static Call openGzipped(StreamClient client, String mode) throws Exception {
    Map<String, String> metadata = new HashMap<>(Chunks.metadata(mode, "sequential"));
    metadata.put("grpc-encoding", "gzip");
    return client.open("WriteRecruits", metadata);
  }

  /** The server may answer and close before it has read all: the outcome is what counts. */
  private static void sendIgnoringReset(Call call, Buffer frame) {
    try {
      call.sendRaw(frame);
      call.end();
    } catch (Exception e) {
      // The stream was closed by the server's answer.
    }
  }

  private static Buffer compressedFrame(byte[] message) {
    return Buffer.buffer().appendByte((byte) 1).appendInt(message.length).appendBytes(message);
  }

  private static byte[] gzip(byte[] message) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      gz.write(message);
    }
    return out.toByteArray();
  }

  private static byte[] gzip(int zeros) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
      byte[] block = new byte[1 << 20];
      for (int written = 0; written < zeros; written += block.length) {
        gz.write(block);
      }
    }
    return out.toByteArray();
  }

  private static void assertReady() {
    given().get("/q/health/ready").then().statusCode(200);
  }
}
