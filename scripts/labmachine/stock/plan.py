"""What the stock machine runs: the README's own lines, read from it, and each step's outcome."""

from __future__ import annotations

import re
from dataclasses import dataclass

from loomlab import LabError

DOCTOR_MISSING = 3  # ./lab doctor: something missing (the README's line accepts it: kubectl is later)


@dataclass(frozen=True)
class Step:
    name: str
    line: str  # the shell line, run in the clone's directory
    accept: tuple[int, ...] = (0,)


@dataclass
class Done:
    name: str
    line: str
    status: int
    seconds: float


def readme_steps(readme: str) -> list[Step]:
    """The README's prerequisite line (each of its `&&` parts: the package lists, the install, then
    its doctor) and its two commands, read from the text a user reads, so the proof follows the README
    when it changes and runs nothing the README does not say."""
    blocks = re.findall(r"```bash\n(.*?)```", readme, re.S)
    lines = [re.sub(r"\s+#.*$", "", x).strip() for b in blocks for x in b.splitlines()]
    line = next((x for x in lines if "apt-get install" in x and x.endswith("&& ./lab doctor")), None)
    if line is None:
        raise LabError("README.md has no `apt-get ... install ... && ./lab doctor` line in a bash block")
    *setup, doctor = line.split(" && ")
    commands = [x for x in lines if re.fullmatch(r"\./lab (bench|test)", x)]
    if len(commands) != 2:
        raise LabError(f"README.md's two commands not found (found {commands})")
    return [
        *(Step(f"the README's line, part {n}", part) for n, part in enumerate(setup, 1)),
        Step("./lab doctor", doctor, (0, DOCTOR_MISSING)),
        *(Step(c, c) for c in commands),
    ]


def steps(readme: str, then: list[str]) -> list[Step]:
    found = readme_steps(readme)
    if not then:
        return found
    return [*found[:-2], *(Step(f"./lab {t}", "./lab " + t) for t in then)]


def summary(done: list[Done]) -> str:
    rows = [f"| {d.name} | `{d.line}` | {d.status} | {d.seconds:,.0f} |" for d in done]
    head = ["| step | line | exit | seconds |", "|---|---|---|---|"]
    return "\n".join(head + rows) + "\n"
