package dev.loomlab.reactive;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;

import dev.loomlab.db.OverloadProbe;
import dev.loomlab.db.OverloadProbe.Answer;
import io.quarkus.test.junit.QuarkusTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The naive reactive form of the mixed workload, CPU work on the event loop, is what the loop probe
 * exists to see: 32 requests of 100 ms of CPU each, spread over the loops by their connections,
 * hold every loop for several hundred ms, and a trivial request landing on one waits that long.
 */
@QuarkusTest
class MixedOnEventLoopTest {

  @Test
  void cpuWorkOnTheEventLoopIsSeenByTheLoopProbe() throws Exception {
    long slowest;
    List<Answer> answers;
    try (LoopLatency latency = LoopLatency.sample()) {
      answers = OverloadProbe.fire("/api/reactive/mixed?cpu-ms=100&wait-ms=0", 32);
      slowest = latency.slowestMillis();
    }
    assertThat(answers.stream().map(Answer::status).toList(), everyItem(equalTo(200)));
    assertThat(slowest, greaterThanOrEqualTo(200L));
  }
}
