package dev.loomlab.tasks;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The tasks suite against the packaged application. */
@QuarkusIntegrationTest
class TasksResourceIT extends TasksResourceTest {}
