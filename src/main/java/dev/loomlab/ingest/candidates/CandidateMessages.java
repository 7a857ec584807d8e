package dev.loomlab.ingest.candidates;

import static dev.loomlab.ingest.grpc.ProtoFields.embedding;
import static dev.loomlab.ingest.grpc.ProtoFields.skills;

import dev.loomlab.ingest.grpc.v1.Candidate;
import dev.loomlab.ingest.grpc.v1.CandidateChunk;
import java.util.List;

/** A {@link CandidateChunk} of the gRPC stream as the records the ingest engine writes. */
public final class CandidateMessages {

  private CandidateMessages() {}

  public static List<CandidateInput> records(CandidateChunk chunk) {
    return chunk.getCandidatesList().stream().map(CandidateMessages::record).toList();
  }

  static CandidateInput record(Candidate c) {
    return new CandidateInput(
        c.getId(),
        c.getName(),
        c.hasHeadline() ? c.getHeadline() : null,
        c.hasLocation() ? c.getLocation() : null,
        c.hasYearsOfExperience() ? c.getYearsOfExperience() : null,
        c.hasDesiredSalary() ? c.getDesiredSalary() : null,
        skills(c.getSkillsList()),
        c.hasProfile() ? c.getProfile() : null,
        embedding(c.getEmbeddingList()));
  }
}
