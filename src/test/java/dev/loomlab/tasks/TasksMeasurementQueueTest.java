package dev.loomlab.tasks;

import static io.restassured.RestAssured.given;
import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs are measured one at a time; with a wait that outlasts the runs in progress (a minute here, 2
 * s by default), overlapping requests queue and each is measured alone.
 */
@QuarkusTest
@TestProfile(TasksMeasurementQueueTest.PatientMeasurements.class)
@ExtendWith(LoomUnitExtension.class)
class TasksMeasurementQueueTest {

  public static class PatientMeasurements implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      // A thread is waited for as long: the measurements' full GCs stop the whole JVM, and on a
      // busy machine the next request's wait for a thread can outlast the 2 s default meanwhile.
      return Map.of("loomlab.tasks.measurement-wait", "60s", "loomlab.execution.max-wait", "60s");
    }
  }

  @Test
  @ShouldNotPin
  void overlappingRunsAreMeasuredOneAfterTheOther() throws Exception {
    // Peak threads, RSS and heap are process-wide: overlapping runs would each report the others'
    // threads and memory. All three succeed and run one after the other: 3 x 300 ms at least.
    FirstRuns.aloneWorkerFirst();
    long start = System.nanoTime();
    // Platform threads for the clients: loom-unit counts pins of every virtual thread in this JVM,
    // and RestAssured's first calls from virtual threads pin in its own class initialisation.
    try (ExecutorService clients = Executors.newFixedThreadPool(3)) {
      List<Future<Integer>> peaks = new ArrayList<>();
      for (String mode : List.of("virtual", "virtual", "worker")) {
        peaks.add(
            clients.submit(
                () ->
                    given()
                        .queryParam("count", mode.equals("worker") ? 10 : 100)
                        .queryParam("ms", 300)
                        .when()
                        .get("/api/" + mode + "/tasks")
                        .then()
                        .statusCode(200)
                        .extract()
                        .<Integer>path("peakConcurrentTasks")));
      }
      assertThat(peaks.get(0).get(), equalTo(100));
      assertThat(peaks.get(1).get(), equalTo(100));
      assertThat(peaks.get(2).get(), equalTo(10));
    }
    assertThat(
        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), greaterThanOrEqualTo(900L));
  }
}
