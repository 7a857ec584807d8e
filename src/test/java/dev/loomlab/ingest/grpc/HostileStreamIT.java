package dev.loomlab.ingest.grpc;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Expensive messages against the packaged application. */
@QuarkusIntegrationTest
class HostileStreamIT extends HostileStreamTest {}
