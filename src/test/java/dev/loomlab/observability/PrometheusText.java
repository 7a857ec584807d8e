package dev.loomlab.observability;

import java.util.Arrays;

/** Reads one sample out of a Prometheus text exposition, for assertions on values. */
public final class PrometheusText {

  private PrometheusText() {}

  /**
   * The value of the first sample of {@code name} whose labels contain every one of {@code labels}
   * (each {@code key="value"}), or NaN when there is none.
   */
  public static double value(String exposition, String name, String... labels) {
    return exposition
        .lines()
        .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
        .filter(l -> Arrays.stream(labels).allMatch(l::contains))
        .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
        .findFirst()
        .orElse(Double.NaN);
  }

  /**
   * The sum of every sample of {@code name} whose labels contain every one of {@code labels}: a
   * count over all its series (every status and outcome of a URI, say), in whatever order the
   * registry lists them; NaN when there is none.
   */
  public static double sum(String exposition, String name, String... labels) {
    double[] samples =
        exposition
            .lines()
            .filter(l -> l.startsWith(name + "{") || l.startsWith(name + " "))
            .filter(l -> Arrays.stream(labels).allMatch(l::contains))
            .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1)))
            .toArray();
    return samples.length == 0 ? Double.NaN : Arrays.stream(samples).sum();
  }

  public static boolean has(String exposition, String name, String... labels) {
    return !Double.isNaN(value(exposition, name, labels));
  }
}
