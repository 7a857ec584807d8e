package dev.loomlab.input;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.exc.StreamConstraintsException;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import java.io.IOException;

/**
 * A parser standing on the opening bracket of one array that refuses the array's value number
 * {@code limit + 1} as it is read, before anything is built from it. Values nested deeper are the
 * business of their own array's parser.
 */
final class CountedArrayParser extends JsonParserDelegate {

  private final JsonStreamContext array;
  private final int limit;
  private final String setting;

  CountedArrayParser(JsonParser parser, int limit, String setting) {
    super(parser);
    this.array = parser.getParsingContext();
    this.limit = limit;
    this.setting = setting;
  }

  @Override
  public JsonToken nextToken() throws IOException {
    return counted(delegate.nextToken());
  }

  @Override
  public JsonToken nextValue() throws IOException {
    return counted(delegate.nextValue());
  }

  @Override
  public String nextTextValue() throws IOException {
    String value = delegate.nextTextValue();
    counted(delegate.currentToken());
    return value;
  }

  @Override
  public int nextIntValue(int defaultValue) throws IOException {
    int value = delegate.nextIntValue(defaultValue);
    counted(delegate.currentToken());
    return value;
  }

  @Override
  public long nextLongValue(long defaultValue) throws IOException {
    long value = delegate.nextLongValue(defaultValue);
    counted(delegate.currentToken());
    return value;
  }

  @Override
  public Boolean nextBooleanValue() throws IOException {
    Boolean value = delegate.nextBooleanValue();
    counted(delegate.currentToken());
    return value;
  }

  private JsonToken counted(JsonToken token) throws IOException {
    if (token == null || token == JsonToken.END_ARRAY) {
      return token;
    }
    JsonStreamContext at = delegate.getParsingContext();
    JsonStreamContext holder = token.isStructStart() ? at.getParent() : at;
    if (holder == array && array.getCurrentIndex() >= limit) {
      throw new StreamConstraintsException(
          "an array holds at most " + limit + " values (" + setting + ")");
    }
    return token;
  }
}
