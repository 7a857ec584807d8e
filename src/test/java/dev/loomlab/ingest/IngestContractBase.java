package dev.loomlab.ingest;

import io.restassured.response.Response;
import io.restassured.response.ValidatableResponse;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import me.escoffier.loom.loomunit.LoomUnitExtension;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a domain's ingest contracts stand on: the domain's records, fields and endpoints (its test
 * supplies them), and the helpers that post chunks and read the tables back.
 */
@ExtendWith(LoomUnitExtension.class)
public abstract class IngestContractBase {

  /** The domain's endpoints and tables. */
  protected abstract IngestClient client();

  /** The JSON field of its free text ("description"). */
  protected abstract String textField();

  /** A required text field of the parent ("company"). */
  protected abstract String requiredField();

  /** A valid record with these skills (level 3 each). */
  protected abstract Map<String, Object> record(long id, List<String> skills);

  /** The first id of this test's ranges. */
  protected abstract long base();

  /** The parent's own fields of a stored record made by {@link #record}. */
  protected abstract void assertOwnFields(ValidatableResponse stored, long id);

  /** A record invalid in a way only this domain knows, and the field its violation names. */
  protected abstract Map<String, Object> invalidOwnField(long id);

  protected abstract String invalidOwnFieldName();

  protected String domain() {
    return client().domain();
  }

  protected String noun() {
    return client().noun();
  }

  protected List<Map<String, Object>> chunk(long from, int count) {
    List<Map<String, Object>> chunk = new ArrayList<>();
    for (long id = from; id < from + count; id++) {
      chunk.add(record(id, List.of("java", "sql", "k8s")));
    }
    return chunk;
  }

  protected Response post(String mode, String writes, Object chunk) {
    return client().post(mode, writes, chunk);
  }

  protected void assertRows(long from, long to, int... expected) throws Exception {
    client().assertRows(from, to, expected);
  }

  protected void assertNothingIn(long from, long to) throws Exception {
    client().assertNothingIn(from, to);
  }
}
