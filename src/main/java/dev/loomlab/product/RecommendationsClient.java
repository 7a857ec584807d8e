package dev.loomlab.product;

import dev.loomlab.execution.EventLoopTimer;
import io.smallrye.mutiny.Uni;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.ArrayList;
import java.util.List;

/**
 * The recommendations dependency: a cache's round trip, answered after its planned latency (the
 * caller's thread blocked, or an event-loop timer), with products derived from the id.
 */
@ApplicationScoped
class RecommendationsClient {

  private final EventLoopTimer timer;

  RecommendationsClient(EventLoopTimer timer) {
    this.timer = timer;
  }

  List<Long> fetch(long id, long latencyMs) throws InterruptedException {
    Thread.sleep(latencyMs);
    return of(id);
  }

  Uni<List<Long>> fetchOnEventLoop(long id, long latencyMs) {
    return timer.after(latencyMs, () -> of(id));
  }

  private static List<Long> of(long id) {
    List<Long> ids = new ArrayList<>(3);
    for (int i = 1; i <= 3; i++) {
      ids.add(Math.floorMod(id * 31 + i * 977, 10_000L) + 1);
    }
    return ids;
  }
}
