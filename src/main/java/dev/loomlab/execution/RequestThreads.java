package dev.loomlab.execution;

import io.quarkus.virtual.threads.VirtualThreads;
import io.vertx.core.Context;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.concurrent.ExecutorService;

/**
 * Runs a unit of request work that did not come through Quarkus REST (a chunk of a gRPC stream) on
 * a thread of its mode, as Quarkus REST runs a request: the worker pool {@code @Blocking} methods
 * run on, the virtual-thread executor {@code @RunOnVirtualThread} methods run on, or a virtual
 * thread carried by the stream's own event loop ({@link LoopCarriers}).
 */
@ApplicationScoped
public class RequestThreads {

  private final ExecutorService virtualThreads;
  private final LoopCarriers loops;

  RequestThreads(@VirtualThreads ExecutorService virtualThreads, LoopCarriers loops) {
    this.virtualThreads = virtualThreads;
    this.loops = loops;
  }

  /**
   * Hands {@code work} to a thread of {@code mode} from the event loop of {@code context}; {@code
   * rejected} runs there instead if no thread would take it.
   */
  public void dispatch(Mode mode, Context context, Runnable work, Runnable rejected) {
    try {
      if (mode == Mode.VIRTUAL) {
        virtualThreads.execute(work);
      } else if (mode == Mode.VIRTUAL_LOOP) {
        loops.execute(context, work);
      } else {
        // Vert.x' worker pool is Quarkus' worker pool: the threads @Blocking methods run on.
        context
            .executeBlocking(
                () -> {
                  work.run();
                  return null;
                },
                false)
            .onFailure(failure -> rejected.run());
      }
    } catch (RuntimeException refused) {
      rejected.run();
    }
  }
}
