package dev.loomlab.ingest.recruits;

import static dev.loomlab.ingest.grpc.ProtoFields.embedding;
import static dev.loomlab.ingest.grpc.ProtoFields.skills;
import static dev.loomlab.ingest.grpc.ProtoFields.time;

import dev.loomlab.ingest.grpc.v1.Recruit;
import dev.loomlab.ingest.grpc.v1.RecruitChunk;
import java.util.List;

/** A {@link RecruitChunk} of the gRPC stream as the records the ingest engine writes. */
public final class RecruitMessages {

  private RecruitMessages() {}

  public static List<RecruitInput> records(RecruitChunk chunk) {
    return chunk.getRecruitsList().stream().map(RecruitMessages::record).toList();
  }

  static RecruitInput record(Recruit r) {
    return new RecruitInput(
        r.getId(),
        r.getCompany(),
        r.getTitle(),
        r.hasLocation() ? r.getLocation() : null,
        r.hasSalaryMin() ? r.getSalaryMin() : null,
        r.hasSalaryMax() ? r.getSalaryMax() : null,
        time(r.hasPostedAt(), r.getPostedAt()),
        skills(r.getSkillsList()),
        r.hasDescription() ? r.getDescription() : null,
        embedding(r.getEmbeddingList()));
  }
}
