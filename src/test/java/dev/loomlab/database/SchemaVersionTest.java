package dev.loomlab.database;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.equalTo;

import io.smallrye.config.WithDefault;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.flywaydb.core.api.MigrationVersion;
import org.junit.jupiter.api.Test;

/**
 * The schema readiness asks for is the last migration's: a new {@code V<n>__} file without a new
 * {@code loomlab.db.schema-version} would let a service on the old schema be ready.
 */
class SchemaVersionTest {

  private static final Pattern VERSIONED = Pattern.compile("V([0-9._]+)__.*\\.sql");

  @Test
  void theSchemaVersionIsTheLastMigrations() throws IOException, NoSuchMethodException {
    MigrationVersion last;
    try (Stream<Path> files = Files.list(Path.of("src/main/resources/db/migration"))) {
      last =
          files
              .map(f -> VERSIONED.matcher(f.getFileName().toString()))
              .filter(Matcher::matches)
              .map(m -> MigrationVersion.fromVersion(m.group(1)))
              .max(Comparator.naturalOrder())
              .orElseThrow();
    }
    String configured =
        DbConfig.class.getMethod("schemaVersion").getAnnotation(WithDefault.class).value();
    assertThat(MigrationVersion.fromVersion(configured), equalTo(last));
  }
}
