package dev.loomlab.tasks;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The measurement's bounded wait, against the packaged application. */
@QuarkusIntegrationTest
class TasksMeasurementWaitIT extends TasksMeasurementWaitTest {}
