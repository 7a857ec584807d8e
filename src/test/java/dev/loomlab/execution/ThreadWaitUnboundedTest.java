package dev.loomlab.execution;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;

import dev.loomlab.db.OverloadProbe;
import dev.loomlab.db.OverloadProbe.Answer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The thread wait unbounded: the worker pool's queue holds every request until its turn comes. */
@QuarkusTest
@TestProfile(ThreadWaitUnboundedTest.FourWorkersNoBound.class)
class ThreadWaitUnboundedTest {

  public static class FourWorkersNoBound implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "quarkus.thread-pool.max-threads", "4", "loomlab.execution.thread-wait-bounded", "false");
    }
  }

  @Test
  void workerModeQueuesTheWholeFloodAndTheLastWaitsForEveryWaveAhead() throws Exception {
    List<Answer> answers =
        OverloadProbe.fire("/api/worker/sleep?ms=" + ThreadWaitTest.MS, ThreadWaitTest.FLOOD);
    assertThat(answers.stream().map(Answer::status).toList(), everyItem(equalTo(200)));
    // 24 requests, 4 at a time, 1 s each: the last wave answers after about 6 s.
    long slowest = answers.stream().mapToLong(Answer::millis).max().orElseThrow();
    assertThat(slowest, greaterThan(4 * ThreadWaitTest.MS));
  }
}
