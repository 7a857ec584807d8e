package dev.loomlab.mixed;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same suite against the packaged application (jar, or native executable with -Dnative). */
@QuarkusIntegrationTest
class MixedResourceIT extends MixedResourceTest {}
