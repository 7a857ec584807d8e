package dev.loomlab.execution;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The bounded thread wait of the packaged application. */
@QuarkusIntegrationTest
class ThreadWaitIT extends ThreadWaitTest {}
