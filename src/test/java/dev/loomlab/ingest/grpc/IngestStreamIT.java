package dev.loomlab.ingest.grpc;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The gRPC stream of chunks against the packaged application. */
@QuarkusIntegrationTest
class IngestStreamIT extends IngestStreamTest {}
