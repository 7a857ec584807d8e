package dev.loomlab.execution;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThan;
import static org.hamcrest.Matchers.in;
import static org.hamcrest.Matchers.lessThan;

import dev.loomlab.db.OverloadProbe;
import dev.loomlab.db.OverloadProbe.Answer;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * One budget per request, the same in every mode: a flood of {@value #FLOOD} queries of {@value
 * #QUERY_MS} ms on 2 connections and 4 worker threads, with a budget of {@value #BUDGET_MS} ms. A
 * worker request that waits for a thread and then for a permit draws both from one budget, so every
 * answer, served or refused, comes within the budget plus the query plus a slack of {@value
 * #SLACK_MS} ms for a busy machine; two budgets in a row would let it wait twice as long.
 */
@QuarkusTest
@TestProfile(WaitBudgetTest.FourWorkersTwoConnections.class)
class WaitBudgetTest {

  static final int FLOOD = 24;
  static final long QUERY_MS = 300;
  static final long BUDGET_MS = 1_500;
  static final long SLACK_MS = 1_000;

  public static class FourWorkersTwoConnections implements QuarkusTestProfile {
    @Override
    public Map<String, String> getConfigOverrides() {
      return Map.of(
          "quarkus.thread-pool.max-threads", "4",
          "quarkus.datasource.jdbc.max-size", "2",
          "loomlab.execution.max-wait", BUDGET_MS + "ms");
    }
  }

  @ParameterizedTest(name = "{0}{1}")
  @CsvSource(
      value = {"worker, ''", "virtual, ''", "virtual, &clients=reactive", "reactive, ''"},
      emptyValue = "")
  void everyAnswerOfAFloodComesWithinTheBudgetAndTheQuery(String mode, String query)
      throws Exception {
    List<Answer> answers =
        OverloadProbe.fire("/api/" + mode + "/db/slow?ms=" + QUERY_MS + query, FLOOD);
    String why = "answers: " + answers;
    List<Answer> ok = answers.stream().filter(a -> a.status() == 200).toList();
    List<Answer> refused = answers.stream().filter(a -> a.status() == 503).toList();
    assertThat(why, ok.size() + refused.size(), equalTo(FLOOD));
    assertThat(why, ok.size(), greaterThan(0));
    assertThat(why, refused.size(), greaterThan(0));
    assertThat(
        why,
        refused.stream().map(Answer::type).toList(),
        everyItem(equalTo("urn:loomlab:problem:overloaded")));
    assertThat(
        why,
        refused.stream().map(Answer::queue).toList(),
        everyItem(in(OverloadProbe.queues(mode, query))));
    assertThat(
        why,
        answers.stream().map(Answer::millis).toList(),
        everyItem(lessThan(BUDGET_MS + QUERY_MS + SLACK_MS)));
  }
}
