package dev.loomlab.ingest;

import java.util.List;
import java.util.stream.Collectors;

/**
 * The statements of every write strategy for one domain, built once from its declaration. Table and
 * column names come from code (the domain's declaration), never from a request.
 */
record IngestSql(
    String upsertParent,
    String replaceSkills,
    String upsertText,
    String deleteTexts,
    String upsertEmbedding,
    String createStages,
    String copyParents,
    String copySkills,
    List<Merge> mergeStages,
    String selectOne,
    String selectSkills) {

  /** One statement of the COPY strategy's merge; {@code counts}: the table whose rows it writes. */
  record Merge(Table counts, String sql) {}

  static IngestSql of(Domain<?, ?> d) {
    String parent = d.table(Table.PARENT);
    String skill = d.table(Table.SKILL);
    String text = d.table(Table.TEXT);
    String embedding = d.table(Table.EMBEDDING);
    String fk = d.foreignKey();
    List<String> names = d.columns().stream().map(Column::name).toList();
    String cols = String.join(", ", names);
    String updates =
        names.stream().map(n -> n + " = EXCLUDED." + n).collect(Collectors.joining(", "));
    String stageParent = "stage_" + parent;
    String stageSkill = "stage_" + skill;
    String stageColumns =
        d.columns().stream()
            .map(c -> c.name() + " " + c.sqlType())
            .collect(Collectors.joining(", "));
    return new IngestSql(
        "INSERT INTO %s (id, %s, updated_at) VALUES (?, %s, now()) ON CONFLICT (id) DO UPDATE SET %s, updated_at = now()"
            .formatted(parent, cols, "?, ".repeat(names.size() - 1) + "?", updates),
        // The record's skills become exactly the chunk's, in one statement (one round trip): delete
        // the skills the chunk no longer names, upsert the ones it does. The two parts touch
        // disjoint rows, as data-modifying CTEs must.
        """
        WITH input (%2$s, skill, level) AS (
          SELECT * FROM unnest(?::bigint[], ?::text[], ?::smallint[])
        ), gone AS (
          DELETE FROM %1$s s WHERE s.%2$s = ANY (?::bigint[])
            AND NOT EXISTS (SELECT 1 FROM input i WHERE i.%2$s = s.%2$s AND i.skill = s.skill)
        )
        INSERT INTO %1$s (%2$s, skill, level)
        SELECT %2$s, skill, level FROM input ORDER BY %2$s, skill
        ON CONFLICT (%2$s, skill) DO UPDATE SET level = EXCLUDED.level
        """
            .formatted(skill, fk),
        "INSERT INTO %s (%s, body) VALUES (?, ?) ON CONFLICT (%2$s) DO UPDATE SET body = EXCLUDED.body"
            .formatted(text, fk),
        // No text in the chunk means none stored: the chunk is the truth.
        "DELETE FROM %s WHERE %s = ANY (?)".formatted(text, fk),
        "INSERT INTO %s (%s, embedding) VALUES (?, ?) ON CONFLICT (%2$s) DO UPDATE SET embedding = EXCLUDED.embedding"
            .formatted(embedding, fk),
        """
        CREATE TEMP TABLE IF NOT EXISTS %s (id bigint, %s, body text, embedding vector)
          ON COMMIT DELETE ROWS;
        CREATE TEMP TABLE IF NOT EXISTS %s (%s bigint, skill text, level smallint)
          ON COMMIT DELETE ROWS
        """
            .formatted(stageParent, stageColumns, stageSkill, fk),
        "COPY %s FROM STDIN (FORMAT csv)".formatted(stageParent),
        "COPY %s FROM STDIN (FORMAT csv)".formatted(stageSkill),
        // One set-based statement per table, in the tables' order, rows in key order.
        List.of(
            new Merge(
                Table.PARENT,
                "INSERT INTO %s (id, %s, updated_at) SELECT id, %2$s, now() FROM %s ORDER BY id ON CONFLICT (id) DO UPDATE SET %s, updated_at = now()"
                    .formatted(parent, cols, stageParent, updates)),
            new Merge(
                null,
                "DELETE FROM %s WHERE %s IN (SELECT id FROM %s)".formatted(skill, fk, stageParent)),
            new Merge(
                Table.SKILL,
                "INSERT INTO %s (%s, skill, level) SELECT %2$s, skill, level FROM %s ORDER BY %2$s, skill"
                    .formatted(skill, fk, stageSkill)),
            new Merge(
                null,
                "DELETE FROM %s WHERE %s IN (SELECT id FROM %s WHERE body IS NULL)"
                    .formatted(text, fk, stageParent)),
            new Merge(
                Table.TEXT,
                "INSERT INTO %s (%s, body) SELECT id, body FROM %s WHERE body IS NOT NULL ORDER BY id ON CONFLICT (%2$s) DO UPDATE SET body = EXCLUDED.body"
                    .formatted(text, fk, stageParent)),
            new Merge(
                Table.EMBEDDING,
                "INSERT INTO %s (%s, embedding) SELECT id, embedding FROM %s ORDER BY id ON CONFLICT (%2$s) DO UPDATE SET embedding = EXCLUDED.embedding"
                    .formatted(embedding, fk, stageParent))),
        """
        SELECT p.id, %s, p.updated_at, t.body, vector_dims(e.embedding) AS dimension
        FROM %s p
        LEFT JOIN %s t ON t.%s = p.id
        LEFT JOIN %s e ON e.%4$s = p.id
        WHERE p.id = ?
        """
            .formatted(
                names.stream().map(n -> "p." + n).collect(Collectors.joining(", ")),
                parent,
                text,
                fk,
                embedding),
        "SELECT skill, level FROM %s WHERE %s = ? ORDER BY skill".formatted(skill, fk));
  }
}
