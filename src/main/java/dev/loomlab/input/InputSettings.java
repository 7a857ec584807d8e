package dev.loomlab.input;

import dev.loomlab.problem.ProblemConfig;
import dev.loomlab.settings.PublishedSettings;
import jakarta.enterprise.context.ApplicationScoped;
import java.util.Map;

/**
 * The bounds every request meets before its body is parsed, the heap bodies may hold, and how many
 * violations an answer to bad input lists (validation stops there).
 */
@ApplicationScoped
class InputSettings implements PublishedSettings {

  private final InputConfig config;
  private final BodyAdmission bodies;
  private final ProblemConfig problems;

  InputSettings(InputConfig config, BodyAdmission bodies, ProblemConfig problems) {
    this.config = config;
    this.bodies = bodies;
    this.problems = problems;
  }

  @Override
  public int order() {
    return 70;
  }

  @Override
  public void publish(Map<String, Object> settings) {
    settings.put("input.max-array-length", config.maxArrayLength());
    settings.put("input.max-tokens", config.maxTokens());
    settings.put("input.max-string-length", config.maxStringLength());
    settings.put("input.max-nesting-depth", config.maxNestingDepth());
    settings.put("input.max-request-line", config.maxRequestLine());
    settings.put("input.max-header-bytes", config.maxHeaderBytes());
    settings.put("input.body-heap-bytes", bodies.heap());
    settings.put("problem.max-violations", problems.maxViolations());
  }
}
