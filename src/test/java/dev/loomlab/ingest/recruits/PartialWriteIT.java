package dev.loomlab.ingest.recruits;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Fault injection and replay against the packaged application. */
@QuarkusIntegrationTest
class PartialWriteIT extends PartialWriteTest {}
