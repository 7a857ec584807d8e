package dev.loomlab.pinning;

import io.quarkus.test.junit.DisabledOnIntegrationTest;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;

/**
 * The pinning suite against the packaged application. The application runs in its own process here,
 * out of reach of loom-unit's JFR recording in this JVM: the native pin is proven by the
 * application's own JFR-fed meters instead (asserted by the inherited body), without the in-process
 * {@code @ShouldPin}. The checks of the JDK read the test's JVM, which launches the application
 * with its own java.
 */
@QuarkusIntegrationTest
class PinningResourceIT extends PinningResourceTest {

  @Override
  @Test
  // An override keeps none of its parent's annotations (@ShouldPin included, which could not see
  // the application's process): the JDK condition is stated again.
  @EnabledForJreRange(maxVersion = 23)
  void synchronizedPinsBeforeJdk24() throws InterruptedException {
    super.synchronizedPinsBeforeJdk24();
  }

  @Override
  @Test
  // A native image has no FFM upcall (it answers 501): the pin is a JVM-only demonstration.
  @EnabledForJreRange(minVersion = 22)
  @DisabledOnIntegrationTest(
      forArtifactTypes = DisabledOnIntegrationTest.ArtifactType.NATIVE_BINARY)
  void nativeUpcallPinsOnEveryJdkWithFfm() throws InterruptedException {
    super.nativeUpcallPinsOnEveryJdkWithFfm();
  }

  @Override
  @Test
  // Nor the virtual-loop mode (no module system to open: it answers 501 there).
  @EnabledForJreRange(minVersion = 22)
  @DisabledOnIntegrationTest(
      forArtifactTypes = DisabledOnIntegrationTest.ArtifactType.NATIVE_BINARY)
  void aNativePinInTheVirtualLoopModeHoldsItsEventLoopAndIsCounted() throws InterruptedException {
    super.aNativePinInTheVirtualLoopModeHoldsItsEventLoopAndIsCounted();
  }

  @Override
  @Test
  // An override keeps none of its parent's annotations: the JDK condition is stated again.
  @EnabledForJreRange(maxVersion = 23)
  @DisabledOnIntegrationTest(
      forArtifactTypes = DisabledOnIntegrationTest.ArtifactType.NATIVE_BINARY)
  void synchronizedInTheVirtualLoopModePinsItsEventLoopBeforeJdk24() throws InterruptedException {
    super.synchronizedInTheVirtualLoopModePinsItsEventLoopBeforeJdk24();
  }

  @Override
  @Test
  @DisabledOnIntegrationTest(
      forArtifactTypes = DisabledOnIntegrationTest.ArtifactType.NATIVE_BINARY)
  void workerThreadsAreNeverPinnedThereIsNoCarrier() {
    super.workerThreadsAreNeverPinnedThereIsNoCarrier();
  }
}
