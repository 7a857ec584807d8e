package dev.loomlab.tasks;

import static io.restassured.RestAssured.given;

import java.util.List;

/**
 * One small run per mode, alone and the worker's first, before a test that runs virtual threads
 * concurrently: a first run links and initialises classes (Netty's query decoder, Jackson, the
 * service's own lambdas), and a virtual thread that waits on another thread there is pinned. The
 * worker's run does the shared part on a platform thread, the virtual one only what is its own.
 */
final class FirstRuns {

  private FirstRuns() {}

  static void aloneWorkerFirst() {
    for (String mode : List.of("worker", "virtual")) {
      given()
          .queryParam("count", 1)
          .queryParam("ms", 0)
          .get("/api/" + mode + "/tasks")
          .then()
          .statusCode(200);
    }
  }
}
