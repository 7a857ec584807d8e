package dev.loomlab.ingest;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Concurrent overlapping writers against the packaged application. */
@QuarkusIntegrationTest
class ConcurrentWritersIT extends ConcurrentWritersTest {}
