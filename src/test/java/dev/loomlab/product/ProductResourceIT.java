package dev.loomlab.product;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The product suite against the packaged application. */
@QuarkusIntegrationTest
class ProductResourceIT extends ProductResourceTest {}
