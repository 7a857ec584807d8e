package dev.loomlab.ingest;

import com.fasterxml.jackson.annotation.JsonIgnore;
import jakarta.validation.constraints.AssertTrue;
import java.util.List;

/**
 * What the ingest engine needs of a record of any domain: its key, its skills, its free text and
 * its embedding. The parent row's other columns are the domain's {@link Column}s.
 */
public interface IngestRecord {

  Long id();

  List<Skill> skills();

  /** The embedding as pgvector stores it: single-precision, four bytes a value, never boxed. */
  float[] embedding();

  /** The text of the TEXT table (a recruit's description, a candidate's profile); null: none. */
  @JsonIgnore
  String text();

  default List<Skill> skillsOrEmpty() {
    return skills() == null ? List.of() : skills();
  }

  @JsonIgnore
  @AssertTrue(message = "skill names must be unique within a record")
  default boolean isSkillNamesUnique() {
    List<String> names =
        skillsOrEmpty().stream()
            .filter(k -> k != null && k.name() != null)
            .map(Skill::name)
            .toList();
    return names.stream().distinct().count() == names.size();
  }

  /** pgvector's text form, "[0.1,0.2,...]". */
  default String embeddingLiteral() {
    float[] e = embedding();
    StringBuilder sb = new StringBuilder(e.length * 10).append('[');
    for (int i = 0; i < e.length; i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(e[i]);
    }
    return sb.append(']').toString();
  }
}
