package dev.loomlab.db;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The read bound of the packaged application, in every mode. */
@QuarkusIntegrationTest
class DbReadTimeoutIT extends DbReadTimeoutTest {}
