package dev.loomlab.execution;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The bounded queue wait of the packaged application. */
@QuarkusIntegrationTest
class QueueWaitIT extends QueueWaitTest {}
