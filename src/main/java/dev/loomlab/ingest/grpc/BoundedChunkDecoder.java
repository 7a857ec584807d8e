package dev.loomlab.ingest.grpc;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.Message;
import com.google.protobuf.Parser;
import com.google.protobuf.WireFormat;
import dev.loomlab.ingest.IngestConfig;
import io.vertx.grpc.common.CodecException;
import io.vertx.grpc.common.GrpcMessage;
import io.vertx.grpc.common.GrpcMessageDecoder;
import java.io.IOException;
import java.util.List;

/**
 * Decodes a chunk message only after a scan of its wire form has counted its records and, in each
 * record, its repeated fields against their bounds: a 10 MB message of 900,000 tiny records, or of
 * one embedding of two million floats, is refused having built nothing, where protobuf's parser
 * would first build every one. The scan allocates nothing in proportion to the message. A field the
 * schema does not define, at any depth, is refused and named too: protobuf keeps it aside as an
 * unknown field and the chunk would be written without it.
 *
 * @param <M> the chunk message
 */
final class BoundedChunkDecoder<M> implements GrpcMessageDecoder<M> {

  /** A repeated field of a record, the most values it may hold, and whether it is packed. */
  record Bound(int field, String name, int max, String key, boolean packed) {}

  /**
   * The decoder of a chunk message whose one repeated message field holds the records, each with
   * repeated {@code skills} and a packed {@code embedding}, bounded as the REST bodies are.
   */
  static <M> BoundedChunkDecoder<M> of(Parser<M> parser, Descriptor chunk, IngestConfig config) {
    FieldDescriptor records =
        chunk.getFields().stream()
            .filter(f -> f.isRepeated() && f.getJavaType() == FieldDescriptor.JavaType.MESSAGE)
            .findFirst()
            .orElseThrow();
    Descriptor record = records.getMessageType();
    FieldDescriptor skills = record.findFieldByName("skills");
    FieldDescriptor embedding = record.findFieldByName("embedding");
    return new BoundedChunkDecoder<>(
        parser,
        records.getName(),
        records.getNumber(),
        config.maxChunk(),
        List.of(
            new Bound(
                skills.getNumber(),
                "skills",
                config.maxSkills(),
                "loomlab.ingest.max-skills",
                false),
            new Bound(
                embedding.getNumber(),
                "embedding",
                config.embeddingDimension(),
                "loomlab.ingest.embedding-dimension",
                embedding.isPacked())));
  }

  /** Why a message was refused: a bound crossed, said in the client's terms. */
  static final class Crossed extends IOException {
    Crossed(String message) {
      super(message);
    }
  }

  private final Parser<M> parser;
  private final String records;
  private final int recordsField;
  private final int maxRecords;
  private final List<Bound> bounds;

  BoundedChunkDecoder(
      Parser<M> parser, String records, int recordsField, int maxRecords, List<Bound> bounds) {
    this.parser = parser;
    this.records = records;
    this.recordsField = recordsField;
    this.maxRecords = maxRecords;
    this.bounds = List.copyOf(bounds);
  }

  @Override
  public M decode(GrpcMessage message) throws CodecException {
    byte[] bytes = message.payload().getBytes();
    try {
      scan(CodedInputStream.newInstance(bytes));
      M chunk = parser.parseFrom(bytes);
      String unknown = unknownAt((Message) chunk);
      if (unknown != null) {
        throw new Crossed(unknown.startsWith(" ") ? "the chunk" + unknown : unknown);
      }
      return chunk;
    } catch (InvalidProtocolBufferException e) {
      throw new CodecException(e);
    } catch (IOException e) {
      throw new CodecException(e.getMessage(), e);
    }
  }

  private void scan(CodedInputStream in) throws IOException {
    int count = 0;
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      if (WireFormat.getTagFieldNumber(tag) == recordsField
          && WireFormat.getTagWireType(tag) == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        if (++count > maxRecords) {
          throw new Crossed(
              "at most " + maxRecords + " " + records + " per chunk (loomlab.ingest.max-chunk)");
        }
        int limit = in.pushLimit(in.readRawVarint32());
        scanRecord(in, count - 1);
        in.popLimit(limit);
      } else {
        in.skipField(tag);
      }
    }
  }

  private void scanRecord(CodedInputStream in, int index) throws IOException {
    int[] counts = new int[bounds.size()];
    while (!in.isAtEnd()) {
      int tag = in.readTag();
      int field = WireFormat.getTagFieldNumber(tag);
      int wire = WireFormat.getTagWireType(tag);
      int b = indexOf(field);
      if (b < 0) {
        in.skipField(tag);
        continue;
      }
      Bound bound = bounds.get(b);
      if (bound.packed() && wire == WireFormat.WIRETYPE_LENGTH_DELIMITED) {
        // Packed floats: four bytes each.
        int length = in.readRawVarint32();
        counts[b] += length / 4;
        in.skipRawBytes(length);
      } else {
        counts[b]++;
        in.skipField(tag);
      }
      if (counts[b] > bound.max()) {
        throw new Crossed(
            records
                + "["
                + index
                + "]."
                + bound.name()
                + ": at most "
                + bound.max()
                + " values ("
                + bound.key()
                + ")");
      }
    }
  }

  /**
   * Where {@code m} or a message within it holds a field its type does not define (a number of
   * another schema, or a known number sent with another wire type, which protobuf also sets aside),
   * as a path from {@code m} ("recruits[3].skills[0] has field 9, ..."), or null if none does.
   */
  private static String unknownAt(Message m) {
    if (!m.getUnknownFields().asMap().isEmpty()) {
      return " has field "
          + m.getUnknownFields().asMap().keySet().iterator().next()
          + ", which "
          + m.getDescriptorForType().getFullName()
          + " does not define with that wire type";
    }
    for (FieldDescriptor f : m.getDescriptorForType().getFields()) {
      if (f.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      if (f.isRepeated()) {
        for (int i = 0, n = m.getRepeatedFieldCount(f); i < n; i++) {
          String inner = unknownAt((Message) m.getRepeatedField(f, i));
          if (inner != null) {
            return f.getName() + "[" + i + "]" + (inner.startsWith(" ") ? inner : "." + inner);
          }
        }
      } else if (m.hasField(f)) {
        String inner = unknownAt((Message) m.getField(f));
        if (inner != null) {
          return f.getName() + (inner.startsWith(" ") ? inner : "." + inner);
        }
      }
    }
    return null;
  }

  private int indexOf(int field) {
    for (int i = 0; i < bounds.size(); i++) {
      if (bounds.get(i).field() == field) {
        return i;
      }
    }
    return -1;
  }
}
