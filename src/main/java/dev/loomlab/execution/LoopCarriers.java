package dev.loomlab.execution;

import dev.loomlab.execution.WaitBudget.Queue;
import dev.loomlab.problem.ProblemException;
import io.netty.channel.EventLoop;
import io.smallrye.mutiny.Uni;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.impl.ContextInternal;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ThreadFactory;
import java.util.function.Supplier;

/**
 * The {@link Mode#VIRTUAL_LOOP} mode's threads: a virtual thread whose scheduler is the Vert.x
 * event loop that read its request, so the request leaves that OS thread only to park, and its
 * answer is written by the same thread, with no hand-off to a carrier pool and back.
 *
 * <p>The JDK has no public way to give a virtual thread a scheduler of one's own. Its
 * package-private {@code ThreadBuilders.VirtualThreadBuilder(Executor)} (JDK 21 to 25, there for
 * the JDK's own tests) does, reached by reflection, which {@code --add-opens
 * java.base/java.lang=ALL-UNNAMED} allows (src/main/jvm/service.args, the one statement of the
 * service's flags). Where it is missing or closed (another JDK, a native image) the mode answers
 * 501 saying why, and the other three modes run as before.
 *
 * <p>What it costs to know: a virtual thread pinned while it waits (a native frame; {@code
 * synchronized} on JDK 21) or busy on the CPU holds the event loop itself, and every other
 * connection of that loop waits with it.
 */
@ApplicationScoped
public class LoopCarriers {

  private static final Builder BUILDER = Builder.find();

  private final WaitBudgets budgets;
  private final Map<EventLoop, Loop> loops = new ConcurrentHashMap<>();

  LoopCarriers(WaitBudgets budgets) {
    this.budgets = budgets;
  }

  /** Why the mode cannot run on this JVM, or null where it can. */
  public static String unavailable() {
    return BUILDER.missing;
  }

  /**
   * Runs {@code work} on a new virtual thread carried by the calling event loop, with a budget of
   * the mode's own; its answer or failure is delivered back on that event loop.
   */
  public <T> Uni<T> call(Supplier<T> work) {
    ContextInternal context = eventLoop();
    WaitBudget budget = budgets.open(Mode.VIRTUAL_LOOP);
    return Uni.createFrom()
        .emitter(
            emitter -> {
              long queued = System.nanoTime();
              Runnable run =
                  () -> {
                    T result;
                    try {
                      budget.waited(Queue.THREAD, System.nanoTime() - queued);
                      result = budgets.within(budget, work);
                    } catch (Throwable failure) {
                      context.runOnContext(v -> emitter.fail(failure));
                      return;
                    }
                    context.runOnContext(v -> emitter.complete(result));
                  };
              threadsOf(context).requests.newThread(run).start();
            });
  }

  /**
   * Starts {@code work} on a virtual thread carried by the event loop of {@code context} (a gRPC
   * stream's chunk, which does not come through Quarkus REST).
   */
  public void execute(Context context, Runnable work) {
    threadsOf(requireLoop(context)).requests.newThread(work).start();
  }

  /**
   * A factory of virtual threads carried by the same event loop as the calling virtual thread (a
   * fan-out's sub-tasks stay on their request's loop), named {@code name-virtual-loop-N}.
   */
  public static ThreadFactory sameLoop(String name) {
    Carried carried = Carried.CURRENT.get();
    if (carried == null) {
      throw new IllegalStateException(
          name + ": not on a virtual thread carried by an event loop (the virtual-loop mode)");
    }
    return carried.loop.fanOut(name);
  }

  /**
   * The threads of the event loop of {@code context}: built on its first request, then looked up.
   */
  private Loop threadsOf(ContextInternal context) {
    EventLoop loop = context.nettyEventLoop();
    Loop threads = loops.get(loop);
    return threads != null ? threads : loops.computeIfAbsent(loop, Loop::new);
  }

  private static ContextInternal eventLoop() {
    Context context = Vertx.currentContext();
    if (context == null || !Context.isOnEventLoopThread()) {
      throw new IllegalStateException("the virtual-loop mode starts from an event loop");
    }
    return requireLoop(context);
  }

  private static ContextInternal requireLoop(Context context) {
    if (BUILDER.missing != null) {
      throw ProblemException.notImplemented(
          "the virtual-loop mode cannot run on this JVM: " + BUILDER.missing);
    }
    return (ContextInternal) context;
  }

  /**
   * The thread factories of one event loop, each built once: its requests' ({@code
   * <loop>-virtual-N}) and one per fan-out name ({@code name-virtual-loop-N}; the names are the
   * workloads' constants, so the map stays small).
   */
  private static final class Loop {

    private final Executor loop;
    private final ThreadFactory requests;
    private final Map<String, ThreadFactory> fanOuts = new ConcurrentHashMap<>();

    Loop(EventLoop loop) {
      this.loop = loop;
      // Built by the loop's first request, which runs on the loop itself; "loop" if it did not.
      String name = loop.inEventLoop() ? Thread.currentThread().getName() : "loop";
      this.requests = factory(String.join("-", name, "virtual", ""));
    }

    ThreadFactory fanOut(String name) {
      ThreadFactory threads = fanOuts.get(name);
      return threads != null
          ? threads
          : fanOuts.computeIfAbsent(
              name, n -> factory(String.join("-", n, Mode.VIRTUAL_LOOP.id(), "")));
    }

    private ThreadFactory factory(String prefix) {
      ThreadFactory threads = BUILDER.carriedBy(loop).name(prefix, 0).factory();
      return work -> threads.newThread(new Carried(this, work));
    }
  }

  /** A task of a loop-carried virtual thread, which knows its loop (for {@link #sameLoop}). */
  private record Carried(Loop loop, Runnable work) implements Runnable {

    static final ThreadLocal<Carried> CURRENT = new ThreadLocal<>();

    @Override
    public void run() {
      CURRENT.set(this);
      work.run();
    }
  }

  /** The JDK's virtual-thread builder that takes a scheduler, or why it cannot be had. */
  private record Builder(java.lang.reflect.Constructor<?> constructor, String missing) {

    static Builder find() {
      try {
        var c =
            Class.forName("java.lang.ThreadBuilders$VirtualThreadBuilder")
                .getDeclaredConstructor(Executor.class);
        c.setAccessible(true);
        return new Builder(c, null);
      } catch (ReflectiveOperationException | RuntimeException e) {
        return new Builder(
            null,
            "no JDK virtual-thread builder taking a scheduler is reachable ("
                + e
                + "); it needs JDK 21-25 started with --add-opens java.base/java.lang=ALL-UNNAMED");
      }
    }

    Thread.Builder.OfVirtual carriedBy(Executor loop) {
      try {
        return (Thread.Builder.OfVirtual) constructor.newInstance(loop);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException("the JDK's virtual-thread builder refused a scheduler", e);
      }
    }
  }
}
