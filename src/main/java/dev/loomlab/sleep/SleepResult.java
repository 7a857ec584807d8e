package dev.loomlab.sleep;

/** What one sleep request did, and on which thread. */
public record SleepResult(String mode, String thread, boolean virtual, long sleptMs) {}
