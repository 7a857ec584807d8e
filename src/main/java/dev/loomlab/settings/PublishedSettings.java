package dev.loomlab.settings;

import java.util.Map;

/**
 * What one feature publishes of the pools and bounds in force: {@code /api/info} and the start-up
 * log list every bean of this type, in {@link #order()}, so that a feature states its own knobs and
 * nothing above it needs to know them. Names are {@code <feature>.<knob>}, as every report prints
 * them.
 */
public interface PublishedSettings {

  /** Where this feature's settings come in the list (lower first). */
  int order();

  /** Adds this feature's settings, each under its published name. */
  void publish(Map<String, Object> settings);
}
