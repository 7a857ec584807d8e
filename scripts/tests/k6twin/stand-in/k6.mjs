// k6's own module, as far as the lab's scripts use it: checks are kept, by name, with what they said.
export const twin = { requests: [], checks: {}, messages: [] };

export function check(value, checks) {
  let all = true;
  for (const [name, test] of Object.entries(checks)) {
    const ok = Boolean(test(value));
    twin.checks[name] = (twin.checks[name] ?? true) && ok;
    all &&= ok;
  }
  return all;
}

export function sleep() {}

// k6 seeds its own generator; the twin's draws differ, which is why ids are compared by range.
export function randomSeed() {}
