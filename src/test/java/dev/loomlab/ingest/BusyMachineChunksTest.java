package dev.loomlab.ingest;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.loomlab.db.OverloadProbe;
import dev.loomlab.db.OverloadProbe.Answer;
import io.quarkus.test.junit.QuarkusTest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A busy machine is no overload: {@value #WRITERS} chunks of {@value #RECORDS} records (about 885
 * KB of JSON each) posted at once while two CPU hogs spin, with every pool idle (as many writers as
 * there are connections to spare, a thread for each). Reading and parsing the bodies is the
 * requests' own work, outside their wait budget, so none is refused as overloaded: all are 200.
 */
@QuarkusTest
class BusyMachineChunksTest {

  static final int WRITERS = 8;
  static final int RECORDS = 200;
  static final int HOGS = 2;
  // The hogs stop when the posts are answered, and by this deadline whatever happens.
  static final Duration HOG_LIMIT = Duration.ofSeconds(120);
  private static final ObjectMapper JSON = new ObjectMapper();

  @ParameterizedTest(name = "{0}")
  @ValueSource(strings = {"worker", "virtual", "reactive"})
  void chunksPostedBesideCpuHogsAreAllWritten(String mode) throws Exception {
    long from = 1_030_000 + 10_000L * List.of("worker", "virtual", "reactive").indexOf(mode);
    long to = from + (long) WRITERS * RECORDS - 1;
    IngestClient client = IngestClient.RECRUITS;
    client.delete(from, to);
    List<String> bodies = new ArrayList<>();
    for (int i = 0; i < WRITERS; i++) {
      bodies.add(JSON.writeValueAsString(TestRecords.recruits(from + (long) i * RECORDS, RECORDS)));
    }

    List<Answer> answers;
    AtomicBoolean done = new AtomicBoolean();
    List<Thread> hogs = startHogs(done);
    try {
      answers = OverloadProbe.post("/api/" + mode + "/recruits/batch?writes=sequential", bodies);
    } finally {
      done.set(true);
      for (Thread hog : hogs) {
        hog.join();
      }
    }

    assertThat(
        "answers: " + answers,
        answers.stream().map(Answer::status).toList(),
        everyItem(equalTo(200)));
    client.assertRows(
        from, to, WRITERS * RECORDS, 3 * WRITERS * RECORDS, WRITERS * RECORDS, WRITERS * RECORDS);
    assertThat(answers.size(), equalTo(WRITERS));
  }

  /** Platform threads that keep a core busy each until {@code done}, or {@link #HOG_LIMIT}. */
  private static List<Thread> startHogs(AtomicBoolean done) {
    long deadline = System.nanoTime() + HOG_LIMIT.toNanos();
    List<Thread> hogs = new ArrayList<>();
    for (int i = 0; i < HOGS; i++) {
      hogs.add(
          Thread.ofPlatform()
              .name("cpu-hog-" + i)
              .start(
                  () -> {
                    long spins = 0;
                    while (!done.get() && System.nanoTime() < deadline) {
                      spins += Long.numberOfTrailingZeros(System.nanoTime());
                    }
                    if (spins == 42) {
                      Thread.onSpinWait(); // keeps the loop from being optimised away
                    }
                  }));
    }
    return hogs;
  }
}
