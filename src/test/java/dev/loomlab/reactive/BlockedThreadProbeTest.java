package dev.loomlab.reactive;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

import io.netty.util.concurrent.EventExecutor;
import io.quarkus.test.junit.QuarkusTest;
import io.vertx.core.Vertx;
import io.vertx.core.impl.VertxInternal;
import jakarta.inject.Inject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The probe {@link ReactiveModeTest} relies on sees blocked event loops: without this, a quick
 * answer could also mean a blind probe. (In-process only: it blocks the loops on purpose.) Vert.x's
 * blocked-thread checker is not the witness here: in a long test JVM it warned for the first block
 * of a loop and stayed quiet for the next ones.
 */
@QuarkusTest
class BlockedThreadProbeTest {

  @Inject Vertx vertx;

  @Test
  void probeSeesEventLoopsBlocked() throws Exception {
    long slowest;
    try (LoopLatency latency = LoopLatency.sample()) {
      List<CompletableFuture<Void>> blocks = new ArrayList<>();
      for (EventExecutor loop : ((VertxInternal) vertx).getEventLoopGroup()) {
        CompletableFuture<Void> done = new CompletableFuture<>();
        loop.execute(
            () -> {
              try {
                Thread.sleep(3_500); // what blocking code on the loop would do
                done.complete(null);
              } catch (InterruptedException e) {
                done.completeExceptionally(e);
              }
            });
        blocks.add(done);
      }
      CompletableFuture.allOf(blocks.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
      slowest = latency.slowestMillis();
    }
    assertThat(slowest, greaterThanOrEqualTo(2_500L));
  }
}
