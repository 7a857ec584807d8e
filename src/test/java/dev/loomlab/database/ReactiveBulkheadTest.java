package dev.loomlab.database;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.instanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.smallrye.mutiny.Uni;
import io.smallrye.mutiny.helpers.test.UniAssertSubscriber;
import io.smallrye.mutiny.subscription.UniSubscriber;
import io.smallrye.mutiny.subscription.UniSubscription;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Supplier;
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
    CompletableFuture<String> first = new CompletableFuture<>();
    CompletableFuture<String> second = new CompletableFuture<>();
    CompletableFuture<String> firstDone = hold(bulkhead, first);
    hold(bulkhead, second);
    List<Integer> served = new CopyOnWriteArrayList<>();
    List<CompletableFuture<String>> gates = new ArrayList<>();
    List<CompletableFuture<Void>> started = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      int n = i;
      CompletableFuture<String> gate = new CompletableFuture<>();
      CompletableFuture<Void> in = new CompletableFuture<>();
      gates.add(gate);
      started.add(in);
      bulkhead
          .withPermit(
              LONG,
              () -> {
                served.add(n);
                in.complete(null);
                return Uni.createFrom().completionStage(gate);
              })
          .subscribeAsCompletionStage();
    }
    assertThat(bulkhead.waiting(), equalTo(3));
    first.complete("first");
    await(firstDone);
    await(started.get(0));
    second.complete("second");
    await(started.get(1));
    assertThat(served, contains(0, 1));
    assertThat(bulkhead.waiting(), equalTo(1));

    gates.get(0).complete("w0");
    await(started.get(2));
    assertThat(served, contains(0, 1, 2));
    assertThat(bulkhead.available(), equalTo(0));
  }

  @Test
  void aWaitPastItsBoundFailsAndLeavesThePermitsAsTheyWere() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    CompletableFuture<String> gate = new CompletableFuture<>();
    CompletableFuture<String> held = hold(bulkhead, gate);
    AtomicBoolean ran = new AtomicBoolean();
    ExecutionException e =
        assertThrows(
            ExecutionException.class,
            () ->
                await(
                    bulkhead
                        .withPermit(Duration.ofMillis(20), noted(ran))
                        .subscribeAsCompletionStage()));
    assertThat(e.getCause(), instanceOf(TimeoutException.class));
    assertThat(ran.get(), equalTo(false));
    assertThat(bulkhead.waiting(), equalTo(0));
    gate.complete("done");
    await(held);
    assertThat(bulkhead.available(), equalTo(1));
  }

  @Test
  void pastMaxWaitingACallerIsRefusedAtOnce() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, 1);
    hold(bulkhead, new CompletableFuture<>());
    CompletableFuture<String> queued = hold(bulkhead, new CompletableFuture<>());
    ExecutionException e =
        assertThrows(
            ExecutionException.class, () -> await(hold(bulkhead, new CompletableFuture<>())));
    assertThat(e.getCause(), instanceOf(RejectedExecutionException.class));
    assertThat(queued.isDone(), equalTo(false));
  }

  @Test
  void aCancelledWaiterGivesUpItsPlace() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    CompletableFuture<String> gate = new CompletableFuture<>();
    hold(bulkhead, gate);
    AtomicBoolean ran = new AtomicBoolean();
    UniAssertSubscriber<String> gone =
        bulkhead
            .withPermit(LONG, noted(ran))
            .subscribe()
            .withSubscriber(UniAssertSubscriber.create());
    CompletableFuture<String> next =
        bulkhead.withPermit(LONG, () -> Uni.createFrom().item("next")).subscribeAsCompletionStage();
    gone.cancel();
    assertThat(bulkhead.waiting(), equalTo(1));
    gate.complete("done");
    assertThat(await(next), equalTo("next"));
    assertThat(ran.get(), equalTo(false));
    assertThat(bulkhead.available(), equalTo(1));
  }

  /**
   * A caller gone while its work runs leaves the permit with the work until it ends: the work's
   * connection is not free before, so neither is its permit.
   */
  @Test
  void aCallerGoneLeavesThePermitWithItsWorkUntilTheWorkEnds() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    CompletableFuture<String> work = new CompletableFuture<>();
    UniAssertSubscriber<String> caller =
        bulkhead
            .withPermit(LONG, () -> Uni.createFrom().completionStage(work))
            .subscribe()
            .withSubscriber(UniAssertSubscriber.create());
    caller.cancel();
    assertThat(bulkhead.available(), equalTo(0));
    work.complete("done");
    assertThat(bulkhead.available(), equalTo(1));
    assertThat(work.isCancelled(), equalTo(false));
  }

  /**
   * A caller that leaves as its permit is granted: its work never starts, the permit comes back.
   */
  @Test
  void aCallerGoneAsItsPermitArrivesLeavesNothingHeld() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    CompletableFuture<String> gate = new CompletableFuture<>();
    CompletableFuture<String> held = hold(bulkhead, gate);
    Context context = vertx.getOrCreateContext();
    AtomicBoolean ran = new AtomicBoolean();
    UniAssertSubscriber<String> late =
        onContext(
            context,
            () ->
                bulkhead
                    .withPermit(LONG, noted(ran))
                    .subscribe()
                    .withSubscriber(UniAssertSubscriber.create()));
    // The grant is run on the waiter's context; keep that context busy until the caller has left.
    CountDownLatch busy = new CountDownLatch(1);
    onContext(
        context,
        () -> {
          context.runOnContext(v -> awaitQuietly(busy));
          return null;
        });
    try {
      assertThat(bulkhead.waiting(), equalTo(1));
      gate.complete("done");
      await(held);
      assertThat(bulkhead.waiting(), equalTo(0));
      late.cancel();
    } finally {
      busy.countDown();
    }
    onContext(context, () -> null); // after the grant, which was queued before this
    assertThat(ran.get(), equalTo(false));
    assertThat(bulkhead.available(), equalTo(1));
  }

  /** A caller that leaves before it has entered takes nothing: no permit, no place, no work. */
  @Test
  void aCallerGoneBeforeItEntersTakesNothing() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    AtomicBoolean ran = new AtomicBoolean();
    bulkhead.withPermit(LONG, noted(ran)).subscribe().withSubscriber(new LeavingAtOnce<>());
    assertThat(bulkhead.available(), equalTo(1));
    CompletableFuture<String> gate = new CompletableFuture<>();
    hold(bulkhead, gate);
    bulkhead.withPermit(LONG, noted(ran)).subscribe().withSubscriber(new LeavingAtOnce<>());
    assertThat(bulkhead.waiting(), equalTo(0));
    gate.complete("done");
    assertThat(ran.get(), equalTo(false));
    assertThat(bulkhead.available(), equalTo(1));
  }

  /** A holder's permit comes back once whether its work succeeds, fails or cannot be made. */
  @Test
  void aHolderReleasesItsPermitOnceWhenItsWorkEnds() throws Exception {
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, 1, -1);
    CompletableFuture<String> failed =
        bulkhead
            .<String>withPermit(
                LONG, () -> Uni.createFrom().failure(new IllegalStateException("no")))
            .subscribeAsCompletionStage();
    assertThrows(ExecutionException.class, () -> await(failed));
    assertThat(bulkhead.available(), equalTo(1));
    CompletableFuture<String> thrown =
        bulkhead
            .<String>withPermit(
                LONG,
                () -> {
                  throw new IllegalStateException("no work");
                })
            .subscribeAsCompletionStage();
    assertThrows(ExecutionException.class, () -> await(thrown));
    assertThat(bulkhead.available(), equalTo(1));
    assertThat(await(hold(bulkhead, CompletableFuture.completedFuture("ok"))), equalTo("ok"));
    assertThat(bulkhead.available(), equalTo(1));
  }

  /**
   * Thousands of callers, a third cancelled at random moments (some as their permit arrives on an
   * event loop), a third with a wait too short, the rest holding their permit briefly: afterwards
   * every permit can be held at once again, and nobody waits.
   */
  @Test
  void noPermitIsLostWhateverItsCallersDo() throws Exception {
    int permits = 4;
    ReactiveBulkhead bulkhead = new ReactiveBulkhead(vertx, permits, -1);
    List<CompletableFuture<Void>> ends = new ArrayList<>();
    List<UniAssertSubscriber<Void>> toCancel = new ArrayList<>();
    for (int i = 0; i < 3_000; i++) {
      Duration wait = i % 3 == 1 ? Duration.ofMillis(1) : LONG;
      Uni<Void> use =
          bulkhead
              .<Void>withPermit(
                  wait,
                  () -> Uni.createFrom().voidItem().onItem().delayIt().by(Duration.ofMillis(1)))
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

    // Work whose caller left may still be ending; once it has, all the permits are free.
    CountDownLatch allIn = new CountDownLatch(permits);
    CompletableFuture<String> gate = new CompletableFuture<>();
    List<CompletableFuture<String>> holders = new ArrayList<>();
    for (int i = 0; i < permits; i++) {
      holders.add(
          bulkhead
              .withPermit(
                  LONG,
                  () -> {
                    allIn.countDown();
                    return Uni.createFrom().completionStage(gate);
                  })
              .subscribeAsCompletionStage());
    }
    assertThat("every permit held at once", allIn.await(2, TimeUnit.MINUTES), equalTo(true));
    assertThat(bulkhead.waiting(), equalTo(0));
    gate.complete("done");
    CompletableFuture.allOf(holders.toArray(CompletableFuture[]::new)).get(1, TimeUnit.MINUTES);
    assertThat(bulkhead.available(), equalTo(permits));
  }

  /** A subscriber that cancels as it is subscribed, before the bulkhead sees it. */
  private static final class LeavingAtOnce<T> implements UniSubscriber<T> {
    @Override
    public void onSubscribe(UniSubscription subscription) {
      subscription.cancel();
    }

    @Override
    public void onItem(T item) {
      throw new AssertionError("a caller gone got " + item);
    }

    @Override
    public void onFailure(Throwable failure) {
      throw new AssertionError("a caller gone got " + failure);
    }
  }

  /** A caller that holds a permit until {@code gate} completes. */
  private static CompletableFuture<String> hold(
      ReactiveBulkhead bulkhead, CompletableFuture<String> gate) {
    return bulkhead
        .withPermit(LONG, () -> Uni.createFrom().completionStage(gate))
        .subscribeAsCompletionStage();
  }

  /** Work that notes it ran. */
  private static Supplier<Uni<? extends String>> noted(AtomicBoolean ran) {
    return () -> {
      ran.set(true);
      return Uni.createFrom().item("ran");
    };
  }

  private static <T> T onContext(Context context, Supplier<T> action) throws Exception {
    CompletableFuture<T> done = new CompletableFuture<>();
    context.runOnContext(v -> done.complete(action.get()));
    return await(done);
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private static <T> T await(CompletableFuture<T> future) throws Exception {
    return future.get(1, TimeUnit.MINUTES);
  }
}
