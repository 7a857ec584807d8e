package dev.loomlab.database;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasKey;
import static org.hamcrest.Matchers.instanceOf;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;

import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;
import org.junit.jupiter.api.Test;

/**
 * The reactive client connects as the JDBC URL says: the cluster's URL (TLS, the database's CA, its
 * name checked) and the local one (no TLS) alike.
 */
class PgUriTest {

  @Test
  void theClustersUrlChecksTheServerAgainstItsCaAndName() {
    PgConnectOptions connect =
        PgUri.options(
            "postgresql://postgres:5432/loomlab?sslmode=verify-full"
                + "&sslrootcert=/etc/loom-lab/db-ca/ca.crt&connectTimeout=5");
    assertThat(connect.getHost(), equalTo("postgres"));
    assertThat(connect.getPort(), equalTo(5432));
    assertThat(connect.getDatabase(), equalTo("loomlab"));
    assertThat(connect.getSslMode(), equalTo(SslMode.VERIFY_FULL));
    assertThat(connect.getHostnameVerificationAlgorithm(), equalTo("HTTPS"));
    assertThat(connect.getTrustOptions(), instanceOf(PemTrustOptions.class));
    assertThat(
        ((PemTrustOptions) connect.getTrustOptions()).getCertPaths(),
        contains("/etc/loom-lab/db-ca/ca.crt"));
    // Not sent to the server as a session setting, which it would refuse.
    assertThat(connect.getProperties(), not(hasKey(PgUri.ROOT_CERT)));
  }

  @Test
  void theLocalUrlConnectsWithoutTls() {
    PgConnectOptions connect = PgUri.options("postgresql://127.0.0.1:54329/loomlab");
    assertThat(connect.getHost(), equalTo("127.0.0.1"));
    assertThat(connect.getPort(), equalTo(54329));
    assertThat(connect.getSslMode(), equalTo(SslMode.DISABLE));
    assertThat(connect.getTrustOptions(), nullValue());
  }
}
