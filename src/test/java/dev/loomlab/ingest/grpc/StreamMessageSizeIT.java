package dev.loomlab.ingest.grpc;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The message size bound of the packaged application. */
@QuarkusIntegrationTest
class StreamMessageSizeIT extends StreamMessageSizeTest {}
