package dev.loomlab.database;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.empty;
import static org.hamcrest.Matchers.not;

import io.agroal.api.AgroalDataSource;
import io.quarkus.test.junit.QuarkusTest;
import jakarta.inject.Inject;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Flyway's history, once migrated, is written by the schema's owner alone: the service's role reads
 * it (readiness) and holds no other privilege on it
 * (db/migration/V5__schema_history_the_owners.sql, and service-grants.sql at a local database's
 * every start), though the owner's default privileges hand it every other table. Asked of
 * PostgreSQL's own catalogue as the owner, the role the tests migrate with.
 */
@QuarkusTest
class SchemaHistoryTest {

  private static final String GRANTS =
      "SELECT grantee || ' ' || privilege_type FROM information_schema.role_table_grants"
          + " WHERE table_name = 'flyway_schema_history' AND grantee <> current_user"
          + " AND (privilege_type = 'SELECT') = ?";

  @Inject AgroalDataSource owner;

  private List<String> othersGrants(boolean select) throws Exception {
    List<String> found = new ArrayList<>();
    try (Connection c = owner.getConnection();
        PreparedStatement s = c.prepareStatement(GRANTS)) {
      s.setBoolean(1, select);
      try (ResultSet r = s.executeQuery()) {
        while (r.next()) {
          found.add(r.getString(1));
        }
      }
    }
    return found;
  }

  @Test
  void noRoleButTheOwnerWritesTheHistory() throws Exception {
    // The service's role reads it (./lab db makes that role and its grants at every start): the
    // owner's default privileges reached this table, so the check below is not vacuous.
    assertThat("the service's role reads the history", othersGrants(true), not(empty()));
    assertThat(
        "roles other than the owner that may change the history", othersGrants(false), empty());
  }
}
