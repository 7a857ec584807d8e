package dev.loomlab.db;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Overload behaviour of the packaged application. */
@QuarkusIntegrationTest
class DbOverloadIT extends DbOverloadTest {}
