package dev.loomlab.info;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** /api/info from the packaged application. */
@QuarkusIntegrationTest
class LabInfoResourceIT extends LabInfoResourceTest {}
