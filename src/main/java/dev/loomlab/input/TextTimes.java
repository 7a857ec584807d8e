package dev.loomlab.input;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.deser.std.StdDeserializer;
import com.fasterxml.jackson.databind.exc.MismatchedInputException;
import com.fasterxml.jackson.datatype.jsr310.deser.InstantDeserializer;
import java.io.IOException;
import java.time.OffsetDateTime;

/**
 * A time is ISO 8601 text ({@code "2026-01-02T00:00:00Z"}), read as Jackson reads it (adjusted to
 * UTC). A number is refused: it could mean seconds or milliseconds, and one past what a clock holds
 * ({@code 1e64}) would otherwise read as 1970-01-01 and be stored as that.
 */
final class TextTimes extends StdDeserializer<OffsetDateTime> {

  TextTimes() {
    super(OffsetDateTime.class);
  }

  @Override
  public OffsetDateTime deserialize(JsonParser p, DeserializationContext context)
      throws IOException {
    if (p.currentToken() != JsonToken.VALUE_STRING) {
      throw MismatchedInputException.from(
          p,
          OffsetDateTime.class,
          "a time is ISO 8601 text such as \"2026-01-02T00:00:00Z\", not " + p.getText());
    }
    return InstantDeserializer.OFFSET_DATE_TIME.deserialize(p, context);
  }
}
