package dev.loomlab.tasks;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Measurements one at a time, against the packaged application. */
@QuarkusIntegrationTest
class TasksMeasurementQueueIT extends TasksMeasurementQueueTest {}
