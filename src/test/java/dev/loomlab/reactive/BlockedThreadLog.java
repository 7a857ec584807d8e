package dev.loomlab.reactive;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import java.util.stream.Stream;

/**
 * The warnings of Vert.x's blocked-thread checker ("Thread vert.x-eventloop-thread-N has been
 * blocked for ..."): caught in this JVM for a {@code @QuarkusTest}, read from the packaged
 * application's log file for a {@code @QuarkusIntegrationTest}.
 */
interface BlockedThreadLog {

  String WARNING = "has been blocked for";

  /** Warnings so far. */
  long count();

  /** Listens to the checker's logger in this JVM, where a {@code @QuarkusTest} runs the service. */
  static BlockedThreadLog inProcess() {
    return InProcess.INSTANCE;
  }

  /** Reads the log of the application {@code @QuarkusIntegrationTest} launched. */
  static BlockedThreadLog file(Path log) {
    return () -> {
      if (!Files.exists(log)) {
        return 0;
      }
      try (Stream<String> lines = Files.lines(log)) {
        return lines.filter(l -> l.contains(WARNING)).count();
      } catch (IOException e) {
        throw new IllegalStateException("cannot read " + log, e);
      }
    };
  }

  final class InProcess extends Handler implements BlockedThreadLog {
    static final InProcess INSTANCE = new InProcess();

    private final AtomicLong warnings = new AtomicLong();
    // Held here: java.util.logging keeps loggers weakly, and a collected one loses its handler.
    private final Logger checker = Logger.getLogger("io.vertx.core.impl.BlockedThreadChecker");

    private InProcess() {}

    /** Warnings so far; listens from now on (again, if a restart of the service reset logging). */
    @Override
    public synchronized long count() {
      if (!Arrays.asList(checker.getHandlers()).contains(this)) {
        checker.addHandler(this);
      }
      return warnings.get();
    }

    @Override
    public void publish(LogRecord record) {
      String message = record.getMessage();
      if (message != null && message.contains(WARNING)) {
        warnings.incrementAndGet();
      }
    }

    @Override
    public void flush() {}

    @Override
    public void close() {}
  }
}
