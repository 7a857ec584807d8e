package dev.loomlab.reactive;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import java.nio.file.Path;

/** The same suite against the packaged application, whose log Quarkus writes to a file. */
@QuarkusIntegrationTest
class ReactiveModeIT extends ReactiveModeTest {

  @Override
  protected BlockedThreadLog blockedThreadLog() {
    return BlockedThreadLog.file(Path.of("target", "quarkus.log"));
  }
}
