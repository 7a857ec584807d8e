package dev.loomlab.product;

/** What one dependency answered, how long it took and on which thread. */
record Answered<T>(T value, long millis, String thread, boolean virtual) {}
