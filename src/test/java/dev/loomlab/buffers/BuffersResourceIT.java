package dev.loomlab.buffers;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The same suite against the packaged application (jar, or native executable with -Dnative). */
@QuarkusIntegrationTest
class BuffersResourceIT extends BuffersResourceTest {}
