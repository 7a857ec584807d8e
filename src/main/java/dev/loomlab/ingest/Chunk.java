package dev.loomlab.ingest;

import dev.loomlab.execution.Mode;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A chunk on its way through either engine (threads or event loop): the domain, the records in key
 * order, and what each table took.
 */
record Chunk<R extends IngestRecord>(
    Domain<R, ?> domain,
    List<R> records,
    Map<Table, Integer> rows,
    Map<Table, Long> nanos,
    long startNanos) {

  /** The records sorted by key. */
  static <R extends IngestRecord> Chunk<R> of(Domain<R, ?> domain, List<R> input) {
    // Rows locked in one order (by key) and tables in one order: writers of overlapping chunks
    // queue behind each other instead of deadlocking.
    return new Chunk<>(
        domain,
        input.stream().sorted(Comparator.comparing(IngestRecord::id)).toList(),
        new EnumMap<>(Table.class),
        new EnumMap<>(Table.class),
        System.nanoTime());
  }

  /** Table {@code t} took {@code nanosTaken} to write {@code n} rows. */
  void wrote(Table t, int n, long nanosTaken) {
    synchronized (rows) {
      rows.put(t, n);
      nanos.put(t, nanosTaken);
    }
  }

  /** Table {@code t} got {@code n} rows, its time booked elsewhere (COPY's one statement set). */
  void counted(Table t, int n) {
    synchronized (rows) {
      rows.put(t, n);
    }
  }

  /** The chunk landed: its meters recorded, its answer. */
  BatchResult landed(IngestMeters meters, Mode mode, WriteStrategy writes) {
    Map<String, Integer> rowsOut = new LinkedHashMap<>();
    Map<String, Long> msOut = new LinkedHashMap<>();
    synchronized (rows) {
      nanos.forEach(
          (table, n) -> meters.table(domain, mode, writes, table).record(n, TimeUnit.NANOSECONDS));
      for (Table t : Table.values()) {
        rowsOut.put(domain.table(t), rows.getOrDefault(t, 0));
        msOut.put(domain.table(t), TimeUnit.NANOSECONDS.toMillis(nanos.getOrDefault(t, 0L)));
      }
    }
    meters.records(domain, mode, writes).increment(records.size());
    return new BatchResult(
        domain.name(),
        mode.id(),
        writes.name(),
        Thread.currentThread().getName(),
        Thread.currentThread().isVirtual(),
        records.size(),
        rowsOut,
        msOut,
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos));
  }
}
