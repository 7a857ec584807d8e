package dev.loomlab.database;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.loomlab.database.ReactiveBulkhead.Permit;
import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.helpers.test.UniAssertSubscriber;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The reactive bulkhead alone, on a Vert.x of its own: fairness, bounds, and no permit lost. */
class ReactiveBulkheadTest {

  private static final Duration LONG = Duration.ofSeconds(60);
  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.vertx();
  }

  @AfterEach
  void stop() {
    vertx.close().toCompletionStage().toCompletableFuture().join();
  }

  @Test
  void waitersAreServedInTheOrderTheyCame() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 2, -1);
    Permit first = await(bulkhead.acquire(LONG).subscribeAsCompletionStage());
    Permit second = await(bulkhead.acquire(LONG).subscribeAsCompletionStage());
    List<Integer> served = new CopyOnWriteArrayList<>();
    List<CompletableFuture<Permit>> waiting = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int n = i;
      waiting.add(bulkhead.acquire(LONG).invoke(p -> served.add(n)).subscribeAsCompletionStage());
    }
    assertThat(bulkhead.waiting(), equalTo(3));
    first.release();
    Permit third = await(waiting.get(0));
    second.release();
    await(waiting.get(1));
    assertThat(served, contains(0, 1));
    assertThat(bulkhead.waiting(), equalTo(1));

    third.release();
    third.release(); // a second release of the same permit counts for nothing
    await(waiting.get(2));
    assertThat(served, contains(0, 1, 2));
    assertThat(bulkhead.available(), equalTo(0));
  }

  @Test
  void aWaitPastItsBoundFailsAndLeavesThePermitsAsTheyWere() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    Permit held = await(bulkhead.acquire(LONG).subscribeAsCompletionStage());
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> await(bulkhead.acquire(Duration.ofMillis(20)).subscribeAsCompletionStage()));
    assertThat(e.getCause(), instanceOf(TimeoutException.class));
    assertThat(bulkhead.waiting(), equalTo(0));
    held.release();
    assertThat(bulkhead.available(), equalTo(1));
  }

  @Test
  void pastMaxWaitingACallerIsRefusedAtOnce() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, 1);
    await(bulkhead.acquire(LONG).subscribeAsCompletionStage());
    CompletableFuture<Permit> queued = bulkhead.acquire(LONG).subscribeAsCompletionStage();
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () -> await(bulkhead.acquire(LONG).subscribeAsCompletionStage()));
    assertThat(e.getCause(), instanceOf(RejectedExecutionException.class));
    assertThat(queued.isDone(), equalTo(false));
  }

  @Test
  void aCancelledWaiterGivesUpItsPlace() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    Permit held = await(bulkhead.acquire(LONG).subscribeAsCompletionStage());
    UniAssertSubscriber<Permit> gone =
        bulkhead.acquire(LONG).subscribe().withSubscriber(UniAssertSubscriber.create());
    CompletableFuture<Permit> next = bulkhead.acquire(LONG).subscribeAsCompletionStage();
    gone.cancel();
    assertThat(bulkhead.waiting(), equalTo(1));
    held.release();
    await(next).release();
    assertThat(bulkhead.available(), equalTo(1));
  }

  /**
   * A caller gone while its work runs leaves the permit with the work until it ends: the work's
   * connection is not free before, so neither is its permit.
   */
  @Test
  void aCallerGoneLeavesThePermitWithItsWorkUntilTheWorkEnds() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    Permit permit = await(bulkhead.acquire(LONG).subscribeAsCompletionStage());
    CompletableFuture<String> work = new CompletableFuture<>();
    UniAssertSubscriber<String> caller =
        ReactiveBulkhead.holding(permit, () -> Uni.createFrom().completionStage(work))
            .subscribe()
            .withSubscriber(UniAssertSubscriber.create());
    caller.cancel();
    assertThat(bulkhead.available(), equalTo(0));
    work.complete("done");
    assertThat(bulkhead.available(), equalTo(1));
    assertThat(work.isCancelled(), equalTo(false));
  }

  /** A holder's permit comes back once whether its work succeeds or fails. */
  @Test
  void aHolderReleasesItsPermitOnceWhenItsWorkEnds() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    Permit permit = await(bulkhead.acquire(LONG).subscribeAsCompletionStage());
    CompletableFuture<String> failed =
        ReactiveBulkhead.<String>holding(
                permit, () -> Uni.createFrom().failure(new IllegalStateException("no")))
            .subscribeAsCompletionStage();
    assertThrows(ExecutionException.class, () -> failed.get(60, TimeUnit.SECONDS));
    assertThat(bulkhead.available(), equalTo(1));
    permit.release();
    assertThat(bulkhead.available(), equalTo(1));
  }

  /**
   * Thousands of callers from many threads, a third cancelled at random moments, a third with a
   * wait too short, the rest holding their permit briefly: afterwards every permit is free again.
   */
  @Test
  void noPermitIsLostWhateverItsCallersDo() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 4, -1);
    List<CompletableFuture<Void>> ends = new ArrayList<>();
    List<UniAssertSubscriber<Void>> toCancel = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      Duration wait = i % 3 == 1 ? Duration.ofMillis(1) : LONG;
      var use =
          bulkhead
              .acquire(wait)
              .onItem()
              .transformToUni(
                  permit ->
                      io.smallrye.mutiny.Uni.createFrom()
                          .voidItem()
                          .onItem()
                          .delayIt()
                          .by(Duration.ofMillis(1))
                          .onTermination()
                          .invoke(permit::release))
              .onFailure()
              .recoverWithNull();
      if (i % 3 == 2) {
        toCancel.add(use.subscribe().withSubscriber(UniAssertSubscriber.create()));
      } else {
        ends.add(use.subscribeAsCompletionStage());
      }
      if (i % 50 == 0 && !toCancel.isEmpty()) {
        toCancel.get(toCancel.size() / 2).cancel();
      }
    }
    toCancel.forEach(UniAssertSubscriber::cancel);
    CompletableFuture.allOf(ends.toArray(CompletableFuture[]::new)).get(2, TimeUnit.MINUTES);
    assertThat(bulkhead.waiting(), equalTo(0));
    assertThat(bulkhead.available(), equalTo(4));
  }

  private static <T> T await(CompletableFuture<T> future) throws Exception {
    return future.get(1, TimeUnit.MINUTES);
  }
}
