package dev.loomlab.ingest;

import java.util.List;

/**
 * The four tables of every domain by their role, in foreign-key order, which is also the order in
 * which a transaction writes them (one order for every writer: no lock cycles between tables).
 */
public enum Table {
  /** The domain's own row (recruit, candidate). */
  PARENT,
  /** Its skills, one row per skill. */
  SKILL,
  /** Its free text (a recruit's description, a candidate's profile). */
  TEXT,
  /** Its skills' embedding, a pgvector column. */
  EMBEDDING;

  /** The tables keyed by the parent, written at once by the parallel strategy. */
  static final List<Table> CHILDREN = List.of(SKILL, TEXT, EMBEDDING);
}
