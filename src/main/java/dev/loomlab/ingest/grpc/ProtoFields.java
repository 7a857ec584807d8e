package dev.loomlab.ingest.grpc;

import com.google.protobuf.Timestamp;
import dev.loomlab.ingest.Skill;
import java.time.DateTimeException;
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

  /** Packed floats as the engine's values. */
  public static float[] embedding(List<Float> values) {
    float[] out = new float[values.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = values.get(i);
    }
    return out;
  }

  /**
   * A Timestamp as an instant; one past what Java can hold (its seconds are any int64), or outside
   * the type's documented range (nanos within 0-999,999,999, which Java would otherwise carry into
   * the seconds), reads as {@link OffsetDateTime#MAX} or {@link OffsetDateTime#MIN}, which the
   * records' range check then refuses under the field's name, as it refuses any other instant
   * PostgreSQL cannot store.
   */
  public static OffsetDateTime time(boolean present, Timestamp t) {
    if (!present) {
      return null;
    }
    if (t.getNanos() < 0 || t.getNanos() > 999_999_999) {
      return t.getNanos() < 0 ? OffsetDateTime.MIN : OffsetDateTime.MAX;
    }
    try {
      return OffsetDateTime.ofInstant(
          Instant.ofEpochSecond(t.getSeconds(), t.getNanos()), ZoneOffset.UTC);
    } catch (DateTimeException | ArithmeticException e) {
      return t.getSeconds() < 0 ? OffsetDateTime.MIN : OffsetDateTime.MAX;
    }
  }
}
