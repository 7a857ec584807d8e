package dev.loomlab.ingest.recruits;

import com.fasterxml.jackson.annotation.JsonIgnore;
import dev.loomlab.ingest.IngestRecord;
import dev.loomlab.ingest.Skill;
import dev.loomlab.ingest.StorableText;
import dev.loomlab.ingest.StorableTime;
import dev.loomlab.input.MostValues;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * One recruit (a job posting) of a batch, as clients send it. Bounds that are configuration (chunk
 * size, embedding dimension, skills per record) are checked by {@link
 * dev.loomlab.ingest.ChunkChecks}, with the record's own constraints.
 */
public record RecruitInput(
    @NotNull @Positive Long id,
    @NotBlank @Size(max = 200) @StorableText String company,
    @NotBlank @Size(max = 200) @StorableText String title,
    @Size(max = 200) @StorableText String location,
    @PositiveOrZero Integer salaryMin,
    @PositiveOrZero Integer salaryMax,
    @StorableTime OffsetDateTime postedAt,
    @MostValues("loomlab.ingest.max-skills") List<@NotNull @Valid Skill> skills,
    @Size(max = 20_000) @StorableText String description,
    @NotNull float[] embedding)
    implements IngestRecord {

  @JsonIgnore
  @AssertTrue(message = "salaryMin must not exceed salaryMax")
  public boolean isSalaryRangeOrdered() {
    return salaryMin == null || salaryMax == null || salaryMin <= salaryMax;
  }

  @Override
  public String text() {
    return description;
  }
}
