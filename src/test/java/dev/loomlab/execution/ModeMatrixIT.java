package dev.loomlab.execution;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link ModeMatrixTest} against the packaged jar. */
@QuarkusIntegrationTest
class ModeMatrixIT extends ModeMatrixTest {}
