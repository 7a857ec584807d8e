package dev.loomlab.ingest.grpc;

import dev.loomlab.execution.Mode;
import dev.loomlab.execution.RequestThreads;
import dev.loomlab.execution.WaitBudget;
import dev.loomlab.execution.WaitBudget.Queue;
import dev.loomlab.execution.WaitBudgets;
import dev.loomlab.ingest.BatchResult;
import dev.loomlab.ingest.Domain;
import dev.loomlab.ingest.IngestRecord;
import dev.loomlab.ingest.IngestService;
import dev.loomlab.ingest.WriteStrategy;
import dev.loomlab.ingest.grpc.v1.ChunkAck;
import dev.loomlab.problem.Bounds;
import dev.loomlab.problem.ProblemException;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.grpc.common.GrpcError;
import io.vertx.grpc.common.GrpcStatus;
import io.vertx.grpc.common.InvalidMessageException;
import io.vertx.grpc.server.GrpcServerRequest;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;
import java.util.function.ToLongFunction;
import org.jboss.logging.Logger;

/**
 * One call of a chunk stream: reads a chunk, writes it through the ingest engine on a thread of the
 * stream's mode, acknowledges it after the commit, then reads the next. The request is paused while
 * a chunk is written, so a stream holds one chunk in the service at a time and HTTP/2 flow control
 * holds the rest at the client. Runs on the call's event loop except for the write itself.
 *
 * @param <M> the chunk message
 * @param <R> a record of the domain
 */
final class ChunkStream<M, R extends IngestRecord> {

  private static final Logger LOG = Logger.getLogger(ChunkStream.class);
  static final String MODE_HEADER = "loomlab-mode";
  static final String WRITES_HEADER = "loomlab-writes";

  /** How a domain's chunk message reads: its sequence and its records as the engine takes them. */
  record Messages<M, R>(ToLongFunction<M> sequence, Function<M, List<R>> records) {}

  private final GrpcServerRequest<M, ChunkAck> call;
  private final Domain<R, ?> domain;
  private final Messages<M, R> messages;
  private final IngestService ingest;
  private final WaitBudgets budgets;
  private final RequestThreads threads;
  private final GrpcStreamMetrics metrics;
  private final Context context;
  private final Duration idleTimeout;
  private long idleTimer = -1;
  private long deadlineTimer = -1;
  private Mode mode;
  private WriteStrategy writes;
  private boolean busy;
  private boolean ended;
  private boolean closed;

  ChunkStream(
      GrpcServerRequest<M, ChunkAck> call,
      Domain<R, ?> domain,
      Messages<M, R> messages,
      IngestService ingest,
      WaitBudgets budgets,
      RequestThreads threads,
      GrpcStreamMetrics metrics,
      Duration idleTimeout) {
    this.call = call;
    this.domain = domain;
    this.messages = messages;
    this.ingest = ingest;
    this.budgets = budgets;
    this.threads = threads;
    this.metrics = metrics;
    this.context = Vertx.currentContext();
    this.idleTimeout = idleTimeout;
  }

  void start() {
    try {
      mode = metadata(MODE_HEADER, null, Mode.ON_THREADS);
      writes =
          metadata(WRITES_HEADER, WriteStrategy.sequential, EnumSet.allOf(WriteStrategy.class));
      CallDeadline.of(call.headers().get(CallDeadline.HEADER))
          .ifPresent(
              d ->
                  deadlineTimer =
                      context.owner().setTimer(Math.max(1, d.toMillis()), id -> onDeadline(d)));
    } catch (ProblemException p) {
      fail(p, null);
      return;
    }
    call.handler(this::onChunk)
        .invalidMessageHandler(this::onInvalid)
        .errorHandler(this::onCut)
        .exceptionHandler(this::onCut)
        .endHandler(v -> onEnd());
    armIdle();
  }

  /** Waits for the client's next chunk at most {@code idle-timeout}. */
  private void armIdle() {
    disarmIdle();
    idleTimer = context.owner().setTimer(idleTimeout.toMillis(), id -> onIdle());
  }

  private void disarmIdle() {
    if (idleTimer >= 0) {
      context.owner().cancelTimer(idleTimer);
      idleTimer = -1;
    }
  }

  private void onIdle() {
    idleTimer = -1;
    if (closed || busy || ended) {
      return;
    }
    closeWith(
        GrpcStatus.DEADLINE_EXCEEDED,
        ProblemException.unavailable(
            "no chunk for loomlab.ingest.grpc.idle-timeout ("
                + idleTimeout.toMillis()
                + " ms) after the stream opened or its last acknowledgement; what was acknowledged"
                + " is committed, open a new stream for the rest",
            1));
  }

  /** The client's deadline passed: the call ends; nothing sent after it is written. */
  private void onDeadline(Duration deadline) {
    deadlineTimer = -1;
    if (closed) {
      return;
    }
    closeWith(
        GrpcStatus.DEADLINE_EXCEEDED,
        ProblemException.unavailable(
            "the call's deadline ("
                + CallDeadline.HEADER
                + " "
                + deadline.toMillis()
                + " ms) passed; what was acknowledged is committed"
                + (busy
                    ? ", the chunk being written commits or rolls back without its acknowledgement"
                    : "")
                + "; resend what has no acknowledgement on a new call",
            1));
  }

  /** The call is over, however it ended: no timer of it fires. */
  private void stopTimers() {
    disarmIdle();
    if (deadlineTimer >= 0) {
      context.owner().cancelTimer(deadlineTimer);
      deadlineTimer = -1;
    }
  }

  private <E extends Enum<E>> E metadata(String header, E absent, Set<E> accepted) {
    return Bounds.oneOf("metadata " + header, header, call.headers().get(header), absent, accepted);
  }

  private void onChunk(M chunk) {
    if (closed) {
      // The call has its status (an idle or deadline timeout, an invalid message): a chunk sent
      // after it is not written.
      return;
    }
    disarmIdle();
    long arrival = System.nanoTime();
    long sequence = messages.sequence().applyAsLong(chunk);
    call.pause();
    busy = true;
    Runnable write =
        () -> {
          Outcome outcome;
          try {
            WaitBudget budget = budgets.open(mode);
            budget.waited(Queue.THREAD, System.nanoTime() - arrival);
            List<R> records = messages.records().apply(chunk);
            BatchResult result =
                budgets.within(budget, () -> ingest.batch(domain, mode, writes, records));
            outcome = new Outcome(ChunkAcks.of(domain, sequence, result), null);
          } catch (ProblemException p) {
            outcome = new Outcome(null, p);
          } catch (RuntimeException e) {
            outcome = new Outcome(null, ProblemException.unexpected(e, "in a chunk stream"));
          }
          Outcome done = outcome;
          context.runOnContext(v -> written(sequence, done));
        };
    threads.dispatch(mode, context, write, () -> written(sequence, new Outcome(null, refused())));
  }

  private ProblemException refused() {
    return ProblemException.unavailable(
        "no " + mode.id() + " thread could take the chunk; resend it later", 1);
  }

  private record Outcome(ChunkAck ack, ProblemException problem) {}

  private void written(long sequence, Outcome outcome) {
    busy = false;
    if (closed) {
      // The client cut the stream: the chunk is committed (or rolled back) all the same, only its
      // acknowledgement is lost; the client resends what it has no acknowledgement for.
      return;
    }
    if (outcome.problem() != null) {
      fail(outcome.problem(), sequence);
      return;
    }
    metrics.chunk(domain, mode);
    call.response().write(outcome.ack());
    if (ended) {
      finish();
    } else {
      call.resume();
      armIdle();
    }
  }

  /** A message that is not a chunk (malformed protobuf) or is larger than a bound. */
  private void onInvalid(InvalidMessageException e) {
    if (closed) {
      return;
    }
    InvalidChunks.Refusal refusal = InvalidChunks.refusal(e, domain.noun());
    closeWith(refusal.status(), refusal.problem());
  }

  private void closeWith(GrpcStatus status, ProblemException p) {
    stopTimers();
    closed = true;
    metrics.stream(domain, mode, status);
    GrpcProblems.end(call.response(), status, p, null);
    stopUpload();
  }

  /**
   * After the call's status, a client still sending is told to stop: the gRPC server's cancel, an
   * RST_STREAM once the trailers are out (RFC 9113 §8.1: a server that answers before the request's
   * end resets the stream), and none where the client had ended its side. Else the rest of its
   * upload waits behind the paused request on a window nobody opens.
   */
  private void stopUpload() {
    call.response().cancel();
  }

  private void onCut(Object cause) {
    stopTimers();
    if (closed) {
      return;
    }
    closed = true;
    metrics.stream(domain, mode, GrpcStatus.CANCELLED);
    LOG.debugf(
        "a %s stream was cut by its client (%s)%s",
        domain.name(),
        cause instanceof GrpcError g ? g.name() : String.valueOf(cause),
        busy ? "; the chunk being written completes without its acknowledgement" : "");
  }

  private void onEnd() {
    ended = true;
    if (!busy) {
      finish();
    }
  }

  private void finish() {
    stopTimers();
    if (closed) {
      return;
    }
    closed = true;
    metrics.stream(domain, mode, GrpcStatus.OK);
    call.response().end();
  }

  private void fail(ProblemException p, Long sequence) {
    stopTimers();
    if (closed) {
      return;
    }
    closed = true;
    metrics.stream(domain, mode, GrpcProblems.statusOf(p.type()));
    GrpcProblems.end(call.response(), p, sequence);
    stopUpload();
  }
}
