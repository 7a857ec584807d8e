package dev.loomlab.input;

import com.fasterxml.jackson.databind.BeanDescription;
import com.fasterxml.jackson.databind.DeserializationConfig;
import com.fasterxml.jackson.databind.JsonDeserializer;
import com.fasterxml.jackson.databind.deser.BeanDeserializerModifier;
import com.fasterxml.jackson.databind.type.ArrayType;
import com.fasterxml.jackson.databind.type.CollectionType;

/**
 * Puts every collection and array Jackson reads behind {@link CountedArrayDeserializer}, so that no
 * array is read past {@code limit} values: a 10 MB body of one embedding or of tiny records stops
 * at the bound, not after millions of boxed values have been built.
 */
final class BoundedArrays extends BeanDeserializerModifier {

  private final int limit;

  BoundedArrays(int limit) {
    this.limit = limit;
  }

  @Override
  public JsonDeserializer<?> modifyCollectionDeserializer(
      DeserializationConfig config,
      CollectionType type,
      BeanDescription description,
      JsonDeserializer<?> deserializer) {
    return new CountedArrayDeserializer(deserializer, limit);
  }

  @Override
  public JsonDeserializer<?> modifyArrayDeserializer(
      DeserializationConfig config,
      ArrayType type,
      BeanDescription description,
      JsonDeserializer<?> deserializer) {
    return new CountedArrayDeserializer(deserializer, limit);
  }
}
