package dev.loomlab.pinning;

import io.quarkus.test.junit.QuarkusIntegrationTest;
import org.junit.jupiter.api.Test;

/**
 * The pinning suite against the packaged application. The application runs in its own process here,
 * out of reach of loom-unit's JFR recording in this JVM: the native pin is proven by the
 * application's own JFR-fed meters instead (asserted by the inherited body), without the in-process
 * {@code @ShouldPin}.
 */
@QuarkusIntegrationTest
class PinningResourceIT extends PinningResourceTest {

  @Override
  @Test
  void nativeUpcallPinsOnEveryJdk() throws InterruptedException {
    super.nativeUpcallPinsOnEveryJdk();
  }
}
