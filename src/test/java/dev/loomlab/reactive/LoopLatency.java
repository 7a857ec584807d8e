package dev.loomlab.reactive;

import io.restassured.RestAssured;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * How late the service's event loops answer while something else runs: a trivial reactive request
 * (a 1 ms timer) every 50 ms, each on a connection of its own, so Vert.x spreads them over all its
 * event loops. A loop held by blocking code answers its share only when it is released; a loop that
 * is never blocked answers within the machine's scheduling noise.
 */
final class LoopLatency implements AutoCloseable {

  private static final URI PROBE =
      URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/api/reactive/sleep?ms=1");

  private final AtomicBoolean running = new AtomicBoolean(true);
  private final CompletableFuture<Long> slowest = new CompletableFuture<>();

  private LoopLatency() {}

  /** Starts sampling until {@link #close()}. */
  static LoopLatency sample() {
    LoopLatency probe = new LoopLatency();
    Thread.ofVirtual().name("loop-latency").start(probe::run);
    return probe;
  }

  /** The slowest answer in ms, once sampling has stopped. */
  long slowestMillis() throws Exception {
    close();
    return slowest.get();
  }

  @Override
  public void close() {
    running.set(false);
  }

  private void run() {
    long max = 0;
    try {
      do {
        // A client per request: a connection of its own, so the next one may land on another loop.
        try (HttpClient client = HttpClient.newHttpClient()) {
          long t0 = System.nanoTime();
          HttpResponse<Void> r =
              client.send(
                  HttpRequest.newBuilder(PROBE).build(), HttpResponse.BodyHandlers.discarding());
          long ms = (System.nanoTime() - t0) / 1_000_000;
          if (r.statusCode() != 200) {
            throw new IllegalStateException("probe answered " + r.statusCode());
          }
          max = Math.max(max, ms);
        }
        Thread.sleep(50);
      } while (running.get());
      slowest.complete(max);
    } catch (Exception e) {
      slowest.completeExceptionally(e);
    }
  }
}
