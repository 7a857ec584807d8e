package dev.loomlab.ingest.grpc;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.impl.HttpServerRequestInternal;
import io.vertx.core.http.impl.HttpServerRequestWrapper;

/**
 * A call's request as the gRPC server reads it, with each message's prefix looked at on the way: a
 * message flagged compressed on a call that named no encoding cannot be read (Vert.x drops it and
 * the call would end OK without it), so the stream is reset, as gRPC asks of a server that cannot
 * decode a message; the chunk was never acknowledged, the client resends it. Bodies pass untouched.
 */
final class UncompressedFrames extends HttpServerRequestWrapper {

  private static final int PREFIX = 5;

  /** HTTP/2 INTERNAL_ERROR: the client's gRPC library reports the call as INTERNAL. */
  private static final long INTERNAL_ERROR = 0x2;

  private final byte[] prefix = new byte[PREFIX];
  private int prefixRead;
  private long bodyLeft;
  private boolean refused;

  UncompressedFrames(HttpServerRequestInternal request) {
    super(request);
  }

  @Override
  public HttpServerRequest handler(Handler<Buffer> handler) {
    delegate.handler(
        handler == null
            ? null
            : data -> {
              if (refused) {
                return;
              }
              if (!compressedIn(data)) {
                handler.handle(data);
                return;
              }
              refused = true;
              delegate.response().reset(INTERNAL_ERROR);
            });
    return this;
  }

  /** Reads the message prefixes in {@code data}; true as soon as one is flagged compressed. */
  private boolean compressedIn(Buffer data) {
    int at = 0;
    int length = data.length();
    while (at < length) {
      if (bodyLeft > 0) {
        int skipped = (int) Math.min(bodyLeft, length - at);
        bodyLeft -= skipped;
        at += skipped;
        continue;
      }
      prefix[prefixRead++] = data.getByte(at++);
      if (prefixRead == PREFIX) {
        prefixRead = 0;
        if (prefix[0] != 0) {
          return true;
        }
        bodyLeft =
            ((prefix[1] & 0xffL) << 24)
                | ((prefix[2] & 0xffL) << 16)
                | ((prefix[3] & 0xffL) << 8)
                | (prefix[4] & 0xffL);
      }
    }
    return false;
  }
}
