package dev.loomlab.problem;

import java.util.Locale;

/**
 * An enum constant's name as a client writes it, in paths, headers, JSON and metric tags: lower
 * case, '_' written as '-' ({@code VIRTUAL_LOOP} is {@code virtual-loop}). Here, on the ground
 * floor, so that the modes that answer with it and the checks that read it spell it alike.
 */
public final class EnumNames {

  private EnumNames() {}

  public static String of(Enum<?> constant) {
    return constant.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }
}
