package dev.loomlab.pinning;

/**
 * One pinning request.
 *
 * @param pinsCarrier whether blocking this way keeps a virtual thread on its carrier on this JDK
 *     (the rule; the JFR-based meters and tests observe it)
 */
public record PinningResult(
    String mode,
    String lock,
    int jdk,
    String thread,
    boolean virtual,
    boolean pinsCarrier,
    long heldMs) {}
