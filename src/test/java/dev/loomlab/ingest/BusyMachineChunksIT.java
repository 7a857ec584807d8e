package dev.loomlab.ingest;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link BusyMachineChunksTest} against the packaged jar, the hogs in the test's own JVM. */
@QuarkusIntegrationTest
class BusyMachineChunksIT extends BusyMachineChunksTest {}
