package dev.loomlab.ingest.grpc;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Message;
import com.google.protobuf.util.JsonFormat;
import dev.loomlab.ingest.IngestClient;
import dev.loomlab.ingest.grpc.v1.CandidateChunk;
import dev.loomlab.ingest.grpc.v1.RecruitChunk;
import java.util.List;
import java.util.Map;

/**
 * Chunk messages made of the very records the REST tests send: the JSON maps go through protobuf's
 * JSON mapping (lowerCamelCase names are the .proto's JSON names), so both transports carry the
 * same data.
 */
public final class Chunks {

  private static final ObjectMapper JSON = new ObjectMapper();

  private Chunks() {}

  public static Map<String, String> metadata(String mode, String writes) {
    return Map.of("loomlab-mode", mode, "loomlab-writes", writes);
  }

  /** The gRPC method of a domain ("WriteRecruits"). */
  public static String method(IngestClient domain) {
    return domain == IngestClient.RECRUITS ? "WriteRecruits" : "WriteCandidates";
  }

  public static Message of(IngestClient domain, long sequence, List<Map<String, Object>> records) {
    try {
      String json = JSON.writeValueAsString(Map.of("sequence", sequence, domain.domain(), records));
      Message.Builder builder =
          domain == IngestClient.RECRUITS ? RecruitChunk.newBuilder() : CandidateChunk.newBuilder();
      JsonFormat.parser().merge(json, builder);
      return builder.build();
    } catch (Exception e) {
      throw new IllegalArgumentException("not a chunk of " + domain.domain(), e);
    }
  }
}
