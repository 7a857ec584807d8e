"""The suites run and reported: each suite's rounds (running.rounds), then its loads' sections, made
and printed as the suite ends (reporting.sections), and a summary after the last suite that names
it. What `./lab bench` and `./lab k8s run` drive; running knows nothing of the report."""

from __future__ import annotations

from pathlib import Path

from .planning.plan import Plan
from .reporting.capacity import capacity_section
from .reporting.sections import print_section, section_of
from .reporting.summaries import SUMMARIES
from .running import capacity, rounds
from .running.progress import Progress
from .running.target import Where


def measure(plan: Plan, out: Path, progress: Progress, where: Where, prefix: str = "") -> tuple[list[dict], dict]:
    """Runs the plan (rounds.measure) and turns each load's results into a report section, one per
    JDK of the plan, its lanes those that ran; with the /api/info of the last suite, naming every
    JDK where there were several."""
    sections: list[dict] = []
    info: dict = {}
    settings, chosen, jdks = plan.settings, plan.suites, plan.jdks
    if settings.capacity:  # a search per suite, not rounds of its loads
        for suite, results, info, sla_ms in capacity.searched(plan, out, progress, where, prefix):
            sections.append(capacity_section(suite, suite.loads[0], results, info, settings, where.environment, sla_ms))
            print(f"\n{suite.workload}: {sections[-1]['load']}\n{sections[-1]['table'].text()}")
            print(f"what a rate costs:\n{sections[-1]['server'].text()}\n", flush=True)
        return sections, info
    for n, measured in enumerate(rounds.measure(plan, out, progress, where, prefix)):
        suite = measured.suite
        for ran in measured.runs:
            sections.append(section_of(suite, ran, settings, measured.environment))
            print_section(sections[-1])
        # A summary covers every section so far: it is made once, after the last suite that names it.
        if suite.summary and all(s.summary != suite.summary for s in chosen[n + 1 :]):
            table = SUMMARIES[suite.summary](sections)
            sections[-1]["summary"] = table
            print(f"{suite.workload} summary:\n{table.text()}\n", flush=True)
        info = dict(measured.runs[-1].info)  # the last load's on the last JDK
        if len(jdks) > 1:  # the report's setup line names every JDK
            info["jdk"] = ", ".join(str(ran.info.get("jdk")) for ran in measured.runs[-len(jdks) :])
    return sections, info
