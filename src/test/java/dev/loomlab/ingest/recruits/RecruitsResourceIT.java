package dev.loomlab.ingest.recruits;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The recruits suite against the packaged application. */
@QuarkusIntegrationTest
class RecruitsResourceIT extends RecruitsResourceTest {}
