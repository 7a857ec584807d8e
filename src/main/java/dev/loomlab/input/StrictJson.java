package dev.loomlab.input;

import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.module.SimpleModule;
import io.quarkus.jackson.ObjectMapperCustomizer;
import jakarta.inject.Singleton;
import java.time.OffsetDateTime;

/**
 * The JSON every endpoint reads, as strict as its contract and with one meaning: an unknown key is
 * refused (a mistyped {@code "skils"} would otherwise read as "no skills", and the chunk is the
 * truth for children), so is a key given twice (the last would otherwise win, silently), a fraction
 * where an integer belongs (not truncated) and a time given as a number ({@link TextTimes}); {@link
 * InputConfig}'s bounds hold while the body is parsed. Clients of other services keep their own,
 * tolerant, annotations.
 */
@Singleton
class StrictJson implements ObjectMapperCustomizer {

  private final InputConfig config;

  StrictJson(InputConfig config) {
    this.config = config;
  }

  /** Last, after Quarkus registers the JDK's time module: {@link TextTimes} replaces its reader. */
  @Override
  public int priority() {
    return MINIMUM_PRIORITY;
  }

  @Override
  public void customize(ObjectMapper mapper) {
    mapper.enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    mapper.disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);
    mapper.enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES);
    mapper.getFactory().enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION.mappedFeature());
    mapper
        .getFactory()
        .setStreamReadConstraints(
            StreamReadConstraints.builder()
                .maxStringLength(config.maxStringLength())
                .maxNestingDepth(config.maxNestingDepth())
                .maxNumberLength(config.maxNumberLength())
                .maxTokenCount(config.maxTokens())
                .build());
    mapper.registerModule(
        new SimpleModule("loomlab-bounded-arrays")
            .setDeserializerModifier(new BoundedArrays(config.maxArrayLength()))
            .addDeserializer(OffsetDateTime.class, new TextTimes()));
  }
}
