package dev.loomlab.execution;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The unbounded queue of the packaged application. */
@QuarkusIntegrationTest
class ThreadWaitUnboundedIT extends ThreadWaitUnboundedTest {}
