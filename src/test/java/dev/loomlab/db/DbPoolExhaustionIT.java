package dev.loomlab.db;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Pool exhaustion of the packaged application. */
@QuarkusIntegrationTest
class DbPoolExhaustionIT extends DbPoolExhaustionTest {}
