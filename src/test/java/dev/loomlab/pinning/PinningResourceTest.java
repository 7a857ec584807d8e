package dev.loomlab.pinning;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;

import dev.loomlab.observability.PrometheusText;
import io.quarkus.test.junit.QuarkusTest;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import me.escoffier.loom.loomunit.ShouldPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledForJreRange;
import org.junit.jupiter.api.extension.ExtendWith;

@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class PinningResourceTest {

  @Test
  @ShouldNotPin
  void reentrantLockNeverPins() {
    block("virtual", "reentrant")
        .body("virtual", equalTo(true))
        .body("pinsCarrier", equalTo(false));
  }

  // On the JDKs where the rule differs the test is disabled, not aborted: loom-unit would still
  // check
  // an aborted test's pins (JUnit's conditions decide before its callbacks run).
  @Test
  @ShouldNotPin
  @EnabledForJreRange(minVersion = 24) // JEP 491 unpinned monitors
  void synchronizedNoLongerPinsSinceJdk24() {
    block("virtual", "synchronized")
        .body("pinsCarrier", equalTo(false))
        .body("jdk", greaterThanOrEqualTo(24));
  }

  @Test
  @ShouldPin
  @EnabledForJreRange(maxVersion = 23) // monitors pin until JEP 491
  void synchronizedPinsBeforeJdk24() throws InterruptedException {
    // Seed E's warning, on the seeds' JDK: blocking inside synchronized keeps the carrier.
    assertPinnedBySite("virtual", "synchronized", "dev.loomlab.pinning.PinningService.sleep");
  }

  @Test
  @ShouldPin
  @EnabledForJreRange(minVersion = 22) // the FFM API is final from 22
  void nativeUpcallPinsOnEveryJdkWithFfm() throws InterruptedException {
    assertPinnedBySite("virtual", "native", "dev.loomlab.pinning.PinningService.sleep");
  }

  @Test
  @ShouldPin
  @EnabledForJreRange(minVersion = 22)
  void aNativePinInTheVirtualLoopModeHoldsItsEventLoopAndIsCounted() throws InterruptedException {
    // Its carrier is the event loop that read the request: pinned, the loop waits with it.
    assertPinnedBySite("virtual-loop", "native", "dev.loomlab.pinning.PinningService.sleep");
  }

  @Test
  @ShouldPin
  @EnabledForJreRange(maxVersion = 23) // monitors pin until JEP 491
  void synchronizedInTheVirtualLoopModePinsItsEventLoopBeforeJdk24() throws InterruptedException {
    // JDK 21's warning for this mode: a monitor held across a wait keeps the loop's OS thread.
    assertPinnedBySite("virtual-loop", "synchronized", "dev.loomlab.pinning.PinningService.sleep");
  }

  @Test
  @EnabledForJreRange(maxVersion = 21)
  void nativeUpcallIsAProblemBeforeFfm() {
    given()
        .get("/api/virtual/pinning?lock=native&ms=50")
        .then()
        .statusCode(501)
        .contentType("application/problem+json")
        .body("detail", containsString("JDK 22"));
  }

  /** Blocks pinned with `lock` in `mode`, seen by the service's JFR stream, counted at `site`. */
  private static void assertPinnedBySite(String mode, String lock, String site)
      throws InterruptedException {
    // The service's JFR stream starts beside start-up; its counter appears once it runs.
    for (int i = 0; i < 100 && Double.isNaN(pinnedEventsOrNaN()); i++) {
      Thread.sleep(100);
    }
    assertThat(
        "loomlab_virtual_pinned_events_total is registered", !Double.isNaN(pinnedEventsOrNaN()));
    double before = pinnedEvents();
    double atSiteBefore = pinnedAt(site);
    block(mode, lock).body("pinsCarrier", equalTo(true)).body("heldMs", greaterThanOrEqualTo(50));
    // Observed by the service itself too: JFR hands events over about once a second.
    double after = before;
    for (int i = 0; i < 40 && !(after > before); i++) {
      Thread.sleep(100);
      after = pinnedEvents();
    }
    assertThat(after, greaterThan(before));
    assertThat(pinnedAt(site), greaterThan(atSiteBefore));
    // micrometer-java21's timer records pins over 20 ms (this one held 50 ms) from a JFR stream of
    // its own, which hands its events over on its own schedule: waited for too, not raced.
    double micrometer = 0;
    for (int i = 0; i < 100 && !(micrometer > 0); i++) {
      micrometer = micrometerPinned();
      if (!(micrometer > 0)) {
        Thread.sleep(100);
      }
    }
    assertThat(micrometer, greaterThan(0.0));
  }

  private static double pinnedAt(String site) {
    String m = given().get("/q/metrics").then().extract().asString();
    double v =
        PrometheusText.sum(m, "loomlab_virtual_pinned_site_events_total", "site=\"" + site + "\"");
    return Double.isNaN(v) ? 0 : v;
  }

  private static double micrometerPinned() {
    String m = given().get("/q/metrics").then().extract().asString();
    return PrometheusText.value(m, "jvm_threads_virtual_pinned_seconds_count");
  }

  @Test
  void workerThreadsAreNeverPinnedThereIsNoCarrier() {
    boolean ffm = Runtime.version().feature() >= 22;
    for (String lock :
        ffm
            ? new String[] {"synchronized", "reentrant", "native"}
            : new String[] {"synchronized", "reentrant"}) {
      block("worker", lock).body("virtual", equalTo(false)).body("pinsCarrier", equalTo(false));
    }
  }

  @Test
  void unknownLockIsABadRequest() {
    given()
        .get("/api/virtual/pinning?lock=spin")
        .then()
        .statusCode(400)
        .contentType("application/problem+json")
        .body("violations.field", hasItem("lock"));
  }

  @Test
  void blockingLongerThanTheBoundIsABadRequest() {
    given().get("/api/virtual/pinning?lock=reentrant&ms=2001").then().statusCode(400);
  }

  static io.restassured.response.ValidatableResponse block(String mode, String lock) {
    return given()
        .get("/api/" + mode + "/pinning?lock=" + lock + "&ms=50")
        .then()
        .statusCode(200)
        .body("mode", equalTo(mode))
        .body("lock", equalTo(lock))
        .body("heldMs", greaterThanOrEqualTo(50));
  }

  static double pinnedEvents() {
    double v = pinnedEventsOrNaN();
    return Double.isNaN(v) ? 0 : v;
  }

  static double pinnedEventsOrNaN() {
    String m = given().get("/q/metrics").then().extract().asString();
    return PrometheusText.value(m, "loomlab_virtual_pinned_events_total");
  }
}
