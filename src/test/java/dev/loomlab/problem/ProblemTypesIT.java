package dev.loomlab.problem;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The framework's own errors as problem types, against the packaged application. */
@QuarkusIntegrationTest
class ProblemTypesIT extends ProblemTypesTest {}
