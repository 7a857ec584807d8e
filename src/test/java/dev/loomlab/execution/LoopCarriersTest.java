package dev.loomlab.execution;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.loomlab.db.DbResult;
import dev.loomlab.db.DbService;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import jakarta.inject.Inject;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import me.escoffier.loom.loomunit.ShouldNotPin;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The virtual-loop mode from inside the service: where its virtual threads run, and that a request
 * parked in JDBC leaves its event loop to the next one. (In-process: no IT twin, the packaged
 * application's threads are out of this JVM's reach; VirtualLoopResourceTest has the HTTP side.)
 */
@QuarkusTest
@ExtendWith(LoomUnitExtension.class)
class LoopCarriersTest {

  // Generous: these bound a hang, they are not what is measured.
  private static final long WAIT_S = 60;

  @Inject LoopCarriers loops;
  @Inject Vertx vertx;
  @Inject DbService db;

  @Test
  void theJvmOfTheTestsLetsTheModeRun() {
    assertNull(LoopCarriers.unavailable(), "src/main/jvm/service.args opens java.lang");
  }

  @Test
  @ShouldNotPin
  void aRequestRunsOnAVirtualThreadCarriedByItsOwnEventLoop() throws Exception {
    Context loop = vertx.getOrCreateContext();
    String[] seen =
        onLoop(loop, () -> Thread.currentThread().toString()).get(WAIT_S, TimeUnit.SECONDS);
    String eventLoop = seen[0];
    String inside = seen[1];
    assertTrue(eventLoop.startsWith("vert.x-eventloop-thread-"), eventLoop);
    // A mounted virtual thread prints as VirtualThread[#id,name]/runnable@carrier.
    assertTrue(inside.startsWith("VirtualThread["), inside);
    assertTrue(inside.endsWith("@" + eventLoop), inside + " carried by " + eventLoop);
    assertTrue(inside.contains(eventLoop + "-virtual-"), "named after its loop: " + inside);
  }

  @Test
  @ShouldNotPin
  void aFanOutsSubTasksStayOnTheRequestsEventLoop() throws Exception {
    Context loop = vertx.getOrCreateContext();
    Supplier<String> subTask =
        () -> {
          try (var executor = ModeExecutors.perFanOut(Mode.VIRTUAL_LOOP, 1, "t")) {
            return executor.submit(() -> Thread.currentThread().toString()).get();
          } catch (Exception e) {
            throw new IllegalStateException(e);
          }
        };
    String[] seen = onLoop(loop, subTask).get(WAIT_S, TimeUnit.SECONDS);
    assertTrue(seen[1].contains("t-virtual-loop-"), seen[1]);
    assertTrue(seen[1].endsWith("@" + seen[0]), seen[1] + " carried by " + seen[0]);
  }

  @Test
  @ShouldNotPin
  void whileOneRequestWaitsInJdbcTheNextOnTheSameLoopIsAnswered() throws Exception {
    Context loop = vertx.getOrCreateContext();
    CompletableFuture<String[]> slow =
        onLoop(
            loop,
            () -> {
              DbResult r = db.slowQuery(Mode.VIRTUAL_LOOP, 4_000, Clients.BLOCKING);
              return r.mode();
            });
    // Started after the slow one is parked in the driver's socket read, on the same loop.
    CompletableFuture<String[]> quick = new CompletableFuture<>();
    vertx.setTimer(
        300,
        id -> {
          CompletableFuture<String[]> next = onLoop(loop, () -> "answered");
          next.whenComplete((v, e) -> complete(quick, v, e));
        });
    String[] answered = quick.get(WAIT_S, TimeUnit.SECONDS);
    assertEquals("answered", answered[1]);
    assertFalse(slow.isDone(), "the slow query (4 s) was still parked when the next answered");
    String[] slowAnswer = slow.get(WAIT_S, TimeUnit.SECONDS);
    assertEquals("virtual-loop", slowAnswer[1]);
    assertEquals(slowAnswer[0], answered[0], "both ran on the same event loop");
  }

  /** Runs {@code work} through the mode from {@code loop}: [the loop's thread name, its result]. */
  private CompletableFuture<String[]> onLoop(Context loop, Supplier<String> work) {
    CompletableFuture<String[]> done = new CompletableFuture<>();
    loop.runOnContext(
        v -> {
          String eventLoop = Thread.currentThread().getName();
          Uni<String> call = loops.call(work);
          call.subscribe()
              .with(r -> done.complete(new String[] {eventLoop, r}), done::completeExceptionally);
        });
    return done;
  }

  private static <T> void complete(CompletableFuture<T> future, T value, Throwable failure) {
    if (failure != null) {
      future.completeExceptionally(failure);
    } else {
      future.complete(value);
    }
  }
}
