package dev.loomlab.ingest.recruits;

import dev.loomlab.ingest.Skill;
import java.time.OffsetDateTime;
import java.util.List;

/** A stored recruit with what its child tables hold, to check what landed. */
public record RecruitView(
    long id,
    String company,
    String title,
    String location,
    Integer salaryMin,
    Integer salaryMax,
    OffsetDateTime postedAt,
    OffsetDateTime updatedAt,
    List<Skill> skills,
    String description,
    Integer embeddingDimension) {}
