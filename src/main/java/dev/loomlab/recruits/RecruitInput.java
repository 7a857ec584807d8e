package dev.loomlab.recruits;

import com.fasterxml.jackson.annotation.JsonIgnore;
import jakarta.validation.Valid;
import jakarta.validation.constraints.AssertTrue;
import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.NotNull;
import jakarta.validation.constraints.Positive;
import jakarta.validation.constraints.PositiveOrZero;
import jakarta.validation.constraints.Size;
import java.time.OffsetDateTime;
import java.util.List;

/**
 * One recruit of a batch, as clients send it. Bounds that are configuration (chunk size, embedding
 * dimension, skills per recruit) are checked by {@link ValidChunk}.
 */
public record RecruitInput(
    @NotNull @Positive Long id,
    @NotBlank @Size(max = 200) String company,
    @NotBlank @Size(max = 200) String title,
    @Size(max = 200) String location,
    @PositiveOrZero Integer salaryMin,
    @PositiveOrZero Integer salaryMax,
    OffsetDateTime postedAt,
    List<@NotNull @Valid Skill> skills,
    @Size(max = 20_000) String description,
    @NotNull List<@NotNull Double> embedding) {

  /** A skill and its level (1-5). */
  public record Skill(@NotBlank @Size(max = 100) String name, @Min(1) @Max(5) Integer level) {}

  public List<Skill> skillsOrEmpty() {
    return skills == null ? List.of() : skills;
  }

  @JsonIgnore
  @AssertTrue(message = "salaryMin must not exceed salaryMax")
  public boolean isSalaryRangeOrdered() {
    return salaryMin == null || salaryMax == null || salaryMin <= salaryMax;
  }

  @JsonIgnore
  @AssertTrue(message = "skill names must be unique within a recruit")
  public boolean isSkillNamesUnique() {
    List<Skill> s = skillsOrEmpty();
    return s.stream().filter(k -> k != null && k.name() != null).map(Skill::name).distinct().count()
        == s.stream().filter(k -> k != null && k.name() != null).count();
  }

  /** pgvector's text form, "[0.1,0.2,...]". */
  String embeddingLiteral() {
    StringBuilder sb = new StringBuilder(embedding.size() * 10).append('[');
    for (int i = 0; i < embedding.size(); i++) {
      if (i > 0) {
        sb.append(',');
      }
      sb.append(embedding.get(i).floatValue());
    }
    return sb.append(']').toString();
  }
}
