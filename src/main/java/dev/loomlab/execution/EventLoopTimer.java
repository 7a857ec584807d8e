package dev.loomlab.execution;

import io.smallrye.mutiny.Uni;
import io.vertx.core.Vertx;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.function.Supplier;

/**
 * A wait that holds no thread: a Vert.x timer on the caller's event loop. (Mutiny's {@code
 * onItem().delayIt()} would resume on Quarkus' worker pool, the very pool the worker mode fills.)
 */
@ApplicationScoped
public class EventLoopTimer {

  private final Vertx vertx;

  EventLoopTimer(Vertx vertx) {
    this.vertx = vertx;
  }

  /** {@code value} computed after {@code ms}, on the event loop that asked for it. */
  public <T> Uni<T> after(long ms, Supplier<T> value) {
    if (ms <= 0) {
      return Uni.createFrom().item(value);
    }
    return Uni.createFrom()
        .emitter(
            emitter -> {
              long timer = vertx.setTimer(ms, fired -> emitter.complete(value.get()));
              emitter.onTermination(() -> vertx.cancelTimer(timer));
            });
  }
}
