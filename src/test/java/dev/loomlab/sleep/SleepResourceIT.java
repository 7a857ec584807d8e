package dev.loomlab.sleep;

import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * The same suite against the packaged application (jar, or native executable with -Dnative). The
 * app runs in its own process there, so loom-unit's JFR recording in this JVM cannot see its
 * pinning: {@code @ShouldNotPin} is proven by {@link SleepResourceTest}, where it runs in-process.
 */
@QuarkusIntegrationTest
class SleepResourceIT extends SleepResourceTest {}
