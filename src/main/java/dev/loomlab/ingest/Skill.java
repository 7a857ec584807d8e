package dev.loomlab.ingest;

import jakarta.validation.constraints.Max;
import jakarta.validation.constraints.Min;
import jakarta.validation.constraints.NotBlank;
import jakarta.validation.constraints.Size;

/** A skill and its level (1-5), as every domain sends and stores it. */
public record Skill(
    @NotBlank @Size(max = 100) @StorableText String name, @Min(1) @Max(5) Integer level) {}
