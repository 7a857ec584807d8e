package dev.loomlab.input;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.BeanProperty;
import com.fasterxml.jackson.databind.DeserializationContext;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.deser.std.DelegatingDeserializer;
import java.io.IOException;
import org.eclipse.microprofile.config.ConfigProvider;

/**
 * An array's deserializer that reads its values through a {@link CountedArrayParser}: at most
 * {@code loomlab.input.max-array-length} values, or fewer where the property says so ({@link
 * MostValues}).
 */
final class CountedArrayDeserializer extends DelegatingDeserializer {

  private static final String ANY_ARRAY = "loomlab.input.max-array-length";

  private final int limit;
  private final String setting;

  CountedArrayDeserializer(JsonDeserializer<?> delegate, int limit) {
    this(delegate, limit, ANY_ARRAY);
  }

  private CountedArrayDeserializer(JsonDeserializer<?> delegate, int limit, String setting) {
    super(delegate);
    this.limit = limit;
    this.setting = setting;
  }

  @Override
  protected JsonDeserializer<?> newDelegatingInstance(JsonDeserializer<?> delegate) {
    return new CountedArrayDeserializer(delegate, limit, setting);
  }

  /** The property's own bound, where it names one below the bound of any array. */
  @Override
  public JsonDeserializer<?> createContextual(DeserializationContext ctxt, BeanProperty property)
      throws JsonMappingException {
    CountedArrayDeserializer contextual =
        (CountedArrayDeserializer) super.createContextual(ctxt, property);
    MostValues most = property == null ? null : property.getAnnotation(MostValues.class);
    if (most == null) {
      return contextual;
    }
    int own = ConfigProvider.getConfig().getValue(most.value(), Integer.class);
    return own >= limit
        ? contextual
        : new CountedArrayDeserializer(contextual._delegatee, own, most.value());
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
    return p.isExpectedStartArrayToken() ? new CountedArrayParser(p, limit, setting) : p;
  }
}
