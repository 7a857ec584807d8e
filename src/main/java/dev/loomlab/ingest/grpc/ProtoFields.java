package dev.loomlab.ingest.grpc;

import com.google.protobuf.Timestamp;
import dev.loomlab.ingest.Skill;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;

/**
 * The fields every domain's messages share, as the ingest records hold them: an absent optional
 * field is null, as in JSON, so the same constraints answer the same way over both transports.
 */
public final class ProtoFields {

  private ProtoFields() {}

  public static List<Skill> skills(List<dev.loomlab.ingest.grpc.v1.Skill> skills) {
    List<Skill> out = new ArrayList<>(skills.size());
    for (dev.loomlab.ingest.grpc.v1.Skill s : skills) {
      out.add(new Skill(s.getName(), s.hasLevel() ? s.getLevel() : null));
    }
    return out;
  }

  /** Packed floats as the engine's values; float to double and back is exact. */
  public static List<Double> embedding(List<Float> values) {
    List<Double> out = new ArrayList<>(values.size());
    for (Float v : values) {
      out.add(v.doubleValue());
    }
    return out;
  }

  public static OffsetDateTime time(boolean present, Timestamp t) {
    return present
        ? OffsetDateTime.ofInstant(
            Instant.ofEpochSecond(t.getSeconds(), t.getNanos()), ZoneOffset.UTC)
        : null;
  }
}
