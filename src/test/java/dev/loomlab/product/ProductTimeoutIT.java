package dev.loomlab.product;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Timeouts of the packaged application. */
@QuarkusIntegrationTest
class ProductTimeoutIT extends ProductTimeoutTest {}
