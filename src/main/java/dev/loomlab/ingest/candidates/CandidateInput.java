package dev.loomlab.ingest.candidates;

import dev.loomlab.ingest.IngestRecord;
import dev.loomlab.ingest.Skill;
import dev.loomlab.ingest.StorableText;
import dev.loomlab.input.MostValues;
import jakarta.validation.Valid;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.util.List;

/**
 * One candidate (a person, seed D's CandidateDataProcessor) of a batch, as clients send it. Bounds
 * that are configuration (chunk size, embedding dimension, skills per record) are checked by {@link
 * dev.loomlab.ingest.ChunkChecks}, with the record's own constraints.
 */
public record CandidateInput(
    @NotNull @Positive Long id,
    @NotBlank @Size(max = 200) @StorableText String name,
    @Size(max = 200) @StorableText String headline,
    @Size(max = 200) @StorableText String location,
    @PositiveOrZero @Max(80) Integer yearsOfExperience,
    @PositiveOrZero Integer desiredSalary,
    @MostValues("loomlab.ingest.max-skills") List<@NotNull @Valid Skill> skills,
    @Size(max = 20_000) @StorableText String profile,
    @NotNull float[] embedding)
    implements IngestRecord {

  @Override
  public String text() {
    return profile;
  }
}
