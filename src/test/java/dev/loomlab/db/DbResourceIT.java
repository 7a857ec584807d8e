package dev.loomlab.db;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The db suite against the packaged application. */
@QuarkusIntegrationTest
class DbResourceIT extends DbResourceTest {}
