package dev.loomlab.ingest.grpc;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** A quiet stream's idle limit against the packaged application. */
@QuarkusIntegrationTest
class StreamIdleIT extends StreamIdleTest {}
