package dev.loomlab.ingest.grpc;

import dev.loomlab.execution.Mode;
import dev.loomlab.ingest.Domain;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.vertx.grpc.common.GrpcStatus;
import jakarta.enterprise.context.ApplicationScoped;

/**
 * {@code loomlab_ingest_grpc_streams_total{domain,mode,status}}: how chunk streams ended (OK, a
 * status the service sent, or CANCELLED by the client); {@code
 * loomlab_ingest_grpc_chunks_total{domain,mode}}: chunks acknowledged. The rows and per-table times
 * are the ingest engine's own meters, shared with HTTP.
 */
@ApplicationScoped
class GrpcStreamMetrics {

  private final MeterRegistry registry;

  GrpcStreamMetrics(MeterRegistry registry) {
    this.registry = registry;
  }

  void stream(Domain<?, ?> domain, Mode mode, GrpcStatus status) {
    Counter.builder("loomlab.ingest.grpc.streams")
        .description("gRPC chunk streams by how they ended")
        .tag("domain", domain.name())
        .tag("mode", mode == null ? "none" : mode.id())
        .tag("status", status.name())
        .register(registry)
        .increment();
  }

  void chunk(Domain<?, ?> domain, Mode mode) {
    Counter.builder("loomlab.ingest.grpc.chunks")
        .description("Chunks acknowledged on gRPC streams")
        .tag("domain", domain.name())
        .tag("mode", mode.id())
        .register(registry)
        .increment();
  }
}
