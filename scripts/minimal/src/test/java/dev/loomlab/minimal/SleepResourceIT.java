package dev.loomlab.minimal;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * {@link SleepResourceTest} against the packaged application: under Quarkus' aot-jar packaging
 * ({@code ./lab aot}) this launch is the training run of the minimal application's AOT cache.
 */
@QuarkusIntegrationTest
class SleepResourceIT extends SleepResourceTest {}
