// k6/execution: one user, whose iterations driver.mjs counts.
export default {
  vu: { idInTest: 1, iterationInScenario: 0 },
  scenario: { iterationInTest: 0 },
  test: {
    abort: (why) => {
      throw new Error(`aborted: ${why}`);
    },
  },
};
