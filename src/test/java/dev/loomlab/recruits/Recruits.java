package dev.loomlab.recruits;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/** Deterministic recruit JSON for tests, as clients send it. */
final class Recruits {

  private Recruits() {}

  static Map<String, Object> recruit(long id, List<String> skills) {
    SplittableRandom random = new SplittableRandom(id);
    List<Double> embedding = new ArrayList<>(384);
    for (int i = 0; i < 384; i++) {
      embedding.add(random.nextDouble(-1, 1));
    }
    Map<String, Object> r = new LinkedHashMap<>();
    r.put("id", id);
    r.put("company", "Company " + id);
    r.put("title", "Backend engineer " + id);
    r.put("location", "Seoul");
    r.put("salaryMin", 50_000);
    r.put("salaryMax", 90_000);
    r.put("postedAt", "2026-11-01T09:00:00Z");
    r.put("skills", skills.stream().map(s -> Map.of("name", s, "level", 3)).toList());
    r.put("description", "We are hiring number " + id);
    r.put("embedding", embedding);
    return r;
  }

  static List<Map<String, Object>> chunk(long from, int count) {
    List<Map<String, Object>> chunk = new ArrayList<>();
    for (long id = from; id < from + count; id++) {
      chunk.add(recruit(id, List.of("java", "sql", "k8s")));
    }
    return chunk;
  }
}
