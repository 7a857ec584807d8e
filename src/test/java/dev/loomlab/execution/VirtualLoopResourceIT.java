package dev.loomlab.execution;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The virtual-loop mode against the packaged application (its flags from service.args). */
@QuarkusIntegrationTest
class VirtualLoopResourceIT extends VirtualLoopResourceTest {}
