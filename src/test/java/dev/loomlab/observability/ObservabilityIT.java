package dev.loomlab.observability;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Health, metrics and OpenAPI of the packaged application. */
@QuarkusIntegrationTest
class ObservabilityIT extends ObservabilityTest {}
