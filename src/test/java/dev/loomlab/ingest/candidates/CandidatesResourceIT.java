package dev.loomlab.ingest.candidates;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The candidates contract against the packaged application. */
@QuarkusIntegrationTest
class CandidatesResourceIT extends CandidatesResourceTest {}
