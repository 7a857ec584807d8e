package dev.loomlab.ingest;

import java.util.ArrayList;
import java.util.List;

/**
 * A chunk's rows for each table, as both writers bind them (JDBC parameters or Vert.x tuples): the
 * parent's key and columns, the skills as the arrays of one set-based statement, the texts to
 * upsert and the keys whose text is gone, the embeddings in pgvector's text form.
 */
final class Rows {

  private Rows() {}

  /** One row per record: its key, then the domain's columns in order. */
  static <R extends IngestRecord> List<Object[]> parents(Domain<R, ?> domain, List<R> chunk) {
    List<Object[]> rows = new ArrayList<>(chunk.size());
    for (R r : chunk) {
      Object[] row = new Object[domain.columns().size() + 1];
      row[0] = r.id();
      int i = 1;
      for (Column<R> column : domain.columns()) {
        row[i++] = column.value().apply(r);
      }
      rows.add(row);
    }
    return rows;
  }

  /** The skills of a chunk as parallel arrays, and every record's key (whose other skills go). */
  record Skills(Long[] ids, String[] names, Short[] levels, Long[] keys) {}

  static Skills skills(List<? extends IngestRecord> chunk) {
    List<Long> ids = new ArrayList<>();
    List<String> names = new ArrayList<>();
    List<Short> levels = new ArrayList<>();
    for (IngestRecord r : chunk) {
      for (Skill s : r.skillsOrEmpty()) {
        ids.add(r.id());
        names.add(s.name());
        levels.add(s.level() == null ? null : s.level().shortValue());
      }
    }
    return new Skills(
        ids.toArray(Long[]::new),
        names.toArray(String[]::new),
        levels.toArray(Short[]::new),
        keys(chunk));
  }

  /** The keys of the records without a text: their stored text is deleted. */
  static Long[] withoutText(List<? extends IngestRecord> chunk) {
    return keys(chunk.stream().filter(r -> r.text() == null).toList());
  }

  /** (key, text) of the records with a text. */
  static List<Object[]> texts(List<? extends IngestRecord> chunk) {
    return chunk.stream()
        .filter(r -> r.text() != null)
        .map(r -> new Object[] {r.id(), r.text()})
        .toList();
  }

  /** (key, embedding in pgvector's text form) of every record. */
  static List<Object[]> embeddings(List<? extends IngestRecord> chunk) {
    return chunk.stream().map(r -> new Object[] {r.id(), r.embeddingLiteral()}).toList();
  }

  private static Long[] keys(List<? extends IngestRecord> records) {
    return records.stream().map(IngestRecord::id).toArray(Long[]::new);
  }
}
