package dev.loomlab.ingest;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.BiFunction;

/** Deterministic records of each domain for tests, as clients send them (JSON as maps). */
public final class TestRecords {

  private TestRecords() {}

  public static Map<String, Object> recruit(long id, List<String> skills) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", id);
    r.put("company", "Company " + id);
    r.put("title", "Backend engineer " + id);
    r.put("location", "Seoul");
    r.put("salaryMin", 50_000);
    r.put("salaryMax", 90_000);
    r.put("postedAt", "2026-11-01T09:00:00Z");
    r.put("skills", skills(skills));
    r.put("description", "We are hiring number " + id);
    r.put("embedding", embedding(id));
    return r;
  }

  public static Map<String, Object> candidate(long id, List<String> skills) {
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", id);
    r.put("name", "Candidate " + id);
    r.put("headline", "Platform engineer");
    r.put("location", "Busan");
    r.put("yearsOfExperience", (int) (id % 30));
    r.put("desiredSalary", 70_000);
    r.put("skills", skills(skills));
    r.put("profile", "Profile of candidate " + id);
    r.put("embedding", embedding(id));
    return r;
  }

  public static List<Map<String, Object>> recruits(long from, int count) {
    return chunk(TestRecords::recruit, from, count);
  }

  public static List<Map<String, Object>> candidates(long from, int count) {
    return chunk(TestRecords::candidate, from, count);
  }

  private static List<Map<String, Object>> chunk(
      BiFunction<Long, List<String>, Map<String, Object>> record, long from, int count) {
    List<Map<String, Object>> chunk = new ArrayList<>();
    for (long id = from; id < from + count; id++) {
      chunk.add(record.apply(id, List.of("java", "sql", "k8s")));
    }
    return chunk;
  }

  private static List<Map<String, Object>> skills(List<String> names) {
    return names.stream().map(s -> Map.<String, Object>of("name", s, "level", 3)).toList();
  }

  private static List<Double> embedding(long id) {
    SplittableRandom random = new SplittableRandom(id);
    List<Double> embedding = new ArrayList<>(384);
    for (int i = 0; i < 384; i++) {
      embedding.add(random.nextDouble(-1, 1));
    }
    return embedding;
  }
}
