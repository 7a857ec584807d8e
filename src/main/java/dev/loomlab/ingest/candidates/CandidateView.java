package dev.loomlab.ingest.candidates;

import dev.loomlab.ingest.Skill;
import java.time.OffsetDateTime;
import java.util.List;

/** A stored candidate with what its child tables hold, to check what landed. */
public record CandidateView(
    long id,
    String name,
    String headline,
    String location,
    Integer yearsOfExperience,
    Integer desiredSalary,
    OffsetDateTime updatedAt,
    List<Skill> skills,
    String profile,
    Integer embeddingDimension) {}
