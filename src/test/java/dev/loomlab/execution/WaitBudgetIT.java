package dev.loomlab.execution;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** {@link WaitBudgetTest} against the packaged jar. */
@QuarkusIntegrationTest
class WaitBudgetIT extends WaitBudgetTest {}
