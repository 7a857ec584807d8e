package dev.loomlab.database;

import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.StringJoiner;

/**
 * The JDBC URL's address and TLS as the reactive client's options. Vert.x reads {@code sslmode}
 * from the URL itself; {@code sslrootcert}, the CA the JDBC driver checks the server against, it
 * does not know (it would send it to the server as a session setting, which refuses it), so it
 * becomes the client's trusted certificate here; and {@code verify-full} checks the server's name,
 * as the JDBC driver does.
 */
final class PgUri {

  static final String ROOT_CERT = "sslrootcert";

  private PgUri() {}

  /** {@code uri}: the JDBC URL without its {@code jdbc:} prefix. */
  static PgConnectOptions options(String uri) {
    int query = uri.indexOf('?');
    String rootCert = null;
    StringJoiner kept = new StringJoiner("&");
    if (query >= 0) {
      for (String parameter : uri.substring(query + 1).split("&")) {
        if (parameter.startsWith(ROOT_CERT + "=")) {
          rootCert =
              URLDecoder.decode(
                  parameter.substring(ROOT_CERT.length() + 1), StandardCharsets.UTF_8);
        } else if (!parameter.isEmpty()) {
          kept.add(parameter);
        }
      }
    }
    String address = query < 0 ? uri : uri.substring(0, query);
    PgConnectOptions connect =
        PgConnectOptions.fromUri(kept.length() == 0 ? address : address + "?" + kept);
    if (rootCert != null) {
      connect.setTrustOptions(new PemTrustOptions().addCertPath(rootCert));
    }
    if (connect.getSslMode() == SslMode.VERIFY_FULL) {
      connect.setHostnameVerificationAlgorithm("HTTPS");
    }
    return connect;
  }
}
