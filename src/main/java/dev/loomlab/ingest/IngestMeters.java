package dev.loomlab.ingest;

import dev.loomlab.execution.Mode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ingest engines' meters, the same names and tags in every mode; looked up once per tag set.
 */
@ApplicationScoped
class IngestMeters {

  private final MeterRegistry registry;
  private final Map<Key, Timer> timers = new ConcurrentHashMap<>();
  private final Map<Key, Counter> counters = new ConcurrentHashMap<>();

  IngestMeters(MeterRegistry registry) {
    this.registry = registry;
  }

  private record Key(String domain, Mode mode, WriteStrategy writes, Table table) {}

  Timer table(Domain<?, ?> domain, Mode mode, WriteStrategy writes, Table table) {
    return timers.computeIfAbsent(
        new Key(domain.name(), mode, writes, table),
        k ->
            Timer.builder("loomlab.ingest.table")
                .description("Time to write one table of a chunk")
                .tag("domain", domain.name())
                .tag("table", domain.table(table))
                .tag("writes", writes.name())
                .tag("mode", mode.id())
                .register(registry));
  }

  Counter records(Domain<?, ?> domain, Mode mode, WriteStrategy writes) {
    return counters.computeIfAbsent(
        new Key(domain.name(), mode, writes, null),
        k ->
            Counter.builder("loomlab.ingest.records")
                .description("Records written")
                .tag("domain", domain.name())
                .tag("writes", writes.name())
                .tag("mode", mode.id())
                .register(registry));
  }

  Counter conflicts(Domain<?, ?> domain, Table table, boolean retried) {
    return Counter.builder("loomlab.ingest.conflicts")
        .description(
            "Transactions that lost to a concurrent writer (deadlock or serialization failure):"
                + " retried, or refused with 503 write-conflict once the retries ran out")
        .tag("domain", domain.name())
        .tag("table", domain.table(table))
        .tag("outcome", retried ? "retried" : "refused")
        .register(registry);
  }
}
