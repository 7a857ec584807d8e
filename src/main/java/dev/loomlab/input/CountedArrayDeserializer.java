package dev.loomlab.input;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import java.io.IOException;

/** An array's deserializer that reads its values through a {@link CountedArrayParser}. */
final class CountedArrayDeserializer extends DelegatingDeserializer {

  private final int limit;

  CountedArrayDeserializer(JsonDeserializer<?> delegate, int limit) {
    super(delegate);
    this.limit = limit;
  }

  @Override
  protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
    return new CountedArrayDeserializer(delegate, limit);
  }

  @Override
  public Object deserialize(JsonParser p, DeserializationContext ctxt) throws IOException {
    return _delegatee.deserialize(counted(p), ctxt);
  }

  @Override
  @SuppressWarnings("unchecked")
  public Object deserialize(JsonParser p, DeserializationContext ctxt, Object intoValue)
      throws IOException {
    return ((JsonDeserializer<Object>) _delegatee).deserialize(counted(p), ctxt, intoValue);
  }

  private JsonParser counted(JsonParser p) {
    return p.isExpectedStartArrayToken() ? new CountedArrayParser(p, limit) : p;
  }
}
