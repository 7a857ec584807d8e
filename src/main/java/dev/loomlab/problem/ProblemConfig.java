package dev.loomlab.problem;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** What a problem answer may hold ({@code loomlab.problem.*}). */
@ConfigMapping(prefix = "loomlab.problem")
public interface ProblemConfig {

  /**
   * {@code loomlab.problem.max-violations}: the most violations one answer lists (a body of 1,000
   * bad records has thousands); past it the answer says how many more there were.
   */
  @WithDefault("50")
  int maxViolations();
}
