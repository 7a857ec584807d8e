package dev.loomlab.reactive;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThan;

import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The probe {@link ReactiveModeTest} relies on sees a blocked event loop: without this, a quiet
 * checker could also mean a deaf probe. (In-process only: it blocks an event loop on purpose.)
 */
@QuarkusTest
class BlockedThreadProbeTest {

  @Inject Vertx vertx;

  @Test
  void probeHearsTheCheckerWhenAnEventLoopIsBlocked() throws Exception {
    long before = BlockedThreadLog.inProcess().count();
    CompletableFuture<Void> done = new CompletableFuture<>();
    vertx
        .getOrCreateContext()
        .runOnContext(
            v -> {
              try {
                Thread.sleep(3_500); // past the 2 s limit, with a check every second
                done.complete(null);
              } catch (InterruptedException e) {
                done.completeExceptionally(e);
              }
            });
    done.get(30, TimeUnit.SECONDS);
    assertThat(BlockedThreadLog.inProcess().count() - before, greaterThan(0L));
  }
}
