package dev.loomlab.db;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The database going away and back, under the packaged application. */
@QuarkusIntegrationTest
class DatabaseDownIT extends DatabaseDownTest {}
