package dev.loomlab.product;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** A failing dependency, against the packaged application. */
@QuarkusIntegrationTest
class ProductDependencyDownIT extends ProductDependencyDownTest {}
