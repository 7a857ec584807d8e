package dev.loomlab.buffers;

/**
 * What one request did: the cache asked for, the bytes it encoded into the buffer and their CRC-32,
 * and whether the buffer had to be allocated for it ({@code fresh}).
 */
public record BuffersResult(
    String mode,
    String thread,
    boolean virtual,
    String cache,
    int bytes,
    long crc,
    boolean fresh) {}
