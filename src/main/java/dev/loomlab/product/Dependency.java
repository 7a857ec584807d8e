package dev.loomlab.product;

import java.util.Locale;

/** The four dependencies a product lookup waits for. */
public enum Dependency {
  CATALOG,
  STOCK,
  RECOMMENDATIONS,
  PRICES;

  private final String id = name().toLowerCase(Locale.ROOT);

  public String id() {
    return id;
  }
}
