package dev.loomlab.ingest;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What one domain declares to the ingest engine: its name, its four tables, the columns of its
 * parent table and how a stored row reads back. Everything else (the SQL of each strategy, the
 * executors, transactions, retries, metrics) is the engine's, written once for every domain.
 *
 * @param <R> a record as clients send it
 * @param <V> a stored record as it reads back
 */
public abstract class Domain<R extends IngestRecord, V> {

  private final String name;
  private final String noun;
  private final String foreignKey;
  private final Map<Table, String> tables = new EnumMap<>(Table.class);
  private final List<Column<R>> columns;
  private final IngestSql sql;

  /**
   * @param name the plural in paths and metrics ("recruits")
   * @param noun the parent table, also the singular in messages ("recruit")
   * @param columns the parent's columns besides {@code id} (and {@code updated_at}, which the
   *     engine sets)
   * @param skillTable, textTable, embeddingTable the children, keyed by {@code <noun>_id}
   */
  protected Domain(
      String name,
      String noun,
      String skillTable,
      String textTable,
      String embeddingTable,
      List<Column<R>> columns) {
    this.name = name;
    this.noun = noun;
    this.foreignKey = noun + "_id";
    this.columns = List.copyOf(columns);
    tables.put(Table.PARENT, noun);
    tables.put(Table.SKILL, skillTable);
    tables.put(Table.TEXT, textTable);
    tables.put(Table.EMBEDDING, embeddingTable);
    this.sql = IngestSql.of(this);
  }

  /**
   * A stored row as clients read it: the parent's columns (by name), then what the children hold.
   */
  protected abstract V view(ResultSet parent, List<Skill> skills, String text, Integer dimension)
      throws SQLException;

  public String name() {
    return name;
  }

  public String noun() {
    return noun;
  }

  public String foreignKey() {
    return foreignKey;
  }

  public String table(Table role) {
    return tables.get(role);
  }

  public List<Column<R>> columns() {
    return columns;
  }

  /** The statements of every strategy for this domain, built once from the declaration. */
  IngestSql sql() {
    return sql;
  }
}
