package dev.loomlab.ingest.grpc;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * The k6 scripts' copy of the stream's contract is the service's own: kustomize loads nothing
 * outside k6/, so the ConfigMap the Jobs mount carries {@code k6/proto/ingest.proto}.
 */
class ProtoCopyTest {

  @Test
  void k6CarriesTheServicesProto() throws Exception {
    assertThat(
        "k6/proto/ingest.proto must equal src/main/proto/ingest.proto (cp the latter over it)",
        Files.readString(Path.of("k6/proto/ingest.proto")),
        equalTo(Files.readString(Path.of("src/main/proto/ingest.proto"))));
  }
}
