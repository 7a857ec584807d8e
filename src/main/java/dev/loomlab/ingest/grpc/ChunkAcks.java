package dev.loomlab.ingest.grpc;

import dev.loomlab.ingest.BatchResult;
import dev.loomlab.ingest.Domain;
import dev.loomlab.ingest.Table;
import dev.loomlab.ingest.grpc.v1.ChunkAck;
import dev.loomlab.ingest.grpc.v1.TableWrite;

/** A chunk's acknowledgement: what the engine wrote, table by table, and where it ran. */
final class ChunkAcks {

  private ChunkAcks() {}

  /** Built on the thread that wrote the chunk (its name and kind are part of the answer). */
  static ChunkAck of(Domain<?, ?> domain, long sequence, BatchResult result) {
    ChunkAck.Builder ack =
        ChunkAck.newBuilder()
            .setSequence(sequence)
            .setRecords(result.records())
            .setTotalMs(result.totalMs())
            .setMode(result.mode())
            .setWrites(result.writes())
            .setThread(Thread.currentThread().getName())
            .setVirtual(Thread.currentThread().isVirtual());
    for (Table t : Table.values()) {
      String table = domain.table(t);
      ack.addTables(
          TableWrite.newBuilder()
              .setRole(TableWrite.Role.forNumber(t.ordinal() + 1))
              .setTable(table)
              .setRows(result.rows().getOrDefault(table, 0))
              .setMs(result.tableMs().getOrDefault(table, 0L)));
    }
    return ack.build();
  }
}
