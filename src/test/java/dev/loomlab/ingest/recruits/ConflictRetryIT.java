package dev.loomlab.ingest.recruits;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Conflict retries and refusals against the packaged application. */
@QuarkusIntegrationTest
class ConflictRetryIT extends ConflictRetryTest {}
