package dev.loomlab.recruits;

/** The four tables of a recruit, in foreign-key order. */
public enum Table {
  RECRUIT("recruit"),
  SKILL("recruit_skill"),
  DESCRIPTION("recruit_description"),
  EMBEDDING("recruit_skill_embedding");

  private final String sqlName;

  Table(String sqlName) {
    this.sqlName = sqlName;
  }

  public String sqlName() {
    return sqlName;
  }
}
