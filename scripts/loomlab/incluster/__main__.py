"""The command line of `./lab k8s run` (see __init__.py)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from loomlab import LabError, command
from loomlab.bench import api as bench
from loomlab.incluster import cli
from loomlab.incluster.core import deploy, jobs, lanes, plan, report, target
from loomlab.incluster.core.measure import ClusterWhere
from loomlab.incluster.experiments import scale
from loomlab.kube import Kube
from loomlab.table import fmt_duration


@dataclass(frozen=True)
class Block:
    """One suite measured on one variant's image: its lanes (the modes --mode keeps; empty: all),
    the pods each lane's Deployment runs, and the environment the report names."""

    variant: str
    suite: bench.Suite
    modes: frozenset[bench.Lane]
    pods: int
    environment: str


def plan_blocks(
    args, settings: bench.RunSettings, variants: list[str], modes: set[bench.Lane]
) -> tuple[list[Block], float]:
    """Every block, and the planned seconds of them all."""
    if args.profile == "scale" and (args.jvm_column or args.quota_column):
        raise LabError("--profile scale compares pod counts of the modes' defaults: no knob column")
    if args.profile == "scale":
        blocks = [
            Block("jvm", suite, frozenset({lane}), pods, scale.environment(plan.VARIANTS["jvm"].environment, pods))
            for suite, lane, pods in scale.runs()
        ]
        return blocks, scale.planned_seconds(settings)
    runs = plan.suites_on_variants(args, variants)
    columns = [*map(bench.jvm_column, args.jvm_column), *map(bench.quota_column, args.quota_column)]
    if args.jvm_column and "native" in variants:
        raise LabError("--jvm-column: the native variant has no JVM (--variants without native)")
    suites = [suite for _, suite in runs]
    for column in columns:
        suites = bench.with_column(suites, *column)
    runs = [(variant, suite) for (variant, _), suite in zip(runs, suites, strict=True)]
    lanes.refuse_unfit_names(
        [plan.VARIANTS[v].name for v in variants],
        dict.fromkeys(lane for s in suites for load in s.loads for lane in load.lanes),
    )
    blocks = [
        Block(v, suite, plan.fit_modes(v, suite, modes), args.replicas, plan.VARIANTS[v].environment)
        for v, suite in runs
    ]
    return blocks, plan.planned_seconds(runs, modes, settings)


def apply_services(kube: Kube, args, interleave: bool, variants: list[str]) -> tuple[list[dict], dict, list[str]]:
    """deploy/k8s/local (the database and the variants' Deployments and Services) and the Jobs' own
    objects applied, the schema migrated and rolled out: the rendered services, the Job templates,
    what the report says of the set-up (the schema's migration, the policy probe)."""
    images = target.pushed(args.registry)
    beside = tuple(plan.BESIDE_LOCAL[v] for v in variants if v in plan.BESIDE_LOCAL)
    print(
        f"== applying {' '.join(('deploy/k8s/local', *beside))} (db, {', '.join(variants)}) and the Jobs' objects",
        flush=True,
    )
    names = [plan.VARIANTS[v].name for v in variants]
    service_docs, job_docs, migrated = deploy.apply_local(kube, images, names, beside, cpus=args.cpu_limit)
    templates = jobs.job_templates(job_docs, images)
    policies = deploy.policy_probe(kube, templates)
    print(f"== {policies}", flush=True)
    if interleave:  # every mode gets pods of its own: the variants' shared ones step aside
        for v in variants:
            kube.scale_deployment(plan.VARIANTS[v].name, 0)
    migration = "schema migrated before the service's pods were Ready, by a Job each (Flyway off in the service): " + (
        ", ".join(f"{name} {seconds:.0f} s" for name, seconds in migrated.items())
    )
    return service_docs, templates, [migration, policies]


def settings_of(args) -> bench.RunSettings:
    """Interleaved rounds, as the local bench: every mode's pods up and warm side by side (a
    Deployment of the mode's own), each round every mode once, alone, the order rotated. The scale
    profile compares pod counts of one mode: blocks. k6's dashboard export is a local-file feature."""
    return bench.RunSettings.of(args, interleave=args.profile != "scale", dashboards="none")


def announce(blocks: list[Block], planned: float, skipped: list[str]) -> None:
    """The plan: its blocks and their time, and the variants left out with why."""
    names = [
        f"{b.suite.workload} on {b.environment}" + (f" ({next(iter(b.modes)).key})" if len(b.modes) == 1 else "")
        for b in blocks
    ]
    print(
        f"plan: {len(blocks)} blocks ({', '.join(names)}); about {fmt_duration(planned)} with pod start-ups"
        " and Jobs",
        flush=True,
    )
    for s in skipped:
        print(f"skipped: {s}", flush=True)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = cli.run(argv)
    settings = settings_of(args)
    variants, skipped = plan.variants("jvm" if args.profile == "scale" else args.variants, args.registry)
    blocks, planned = plan_blocks(args, settings, variants, bench.modes_named(args.mode))
    announce(blocks, planned, skipped)
    if args.plan:
        return
    if not variants:
        raise LabError("no service variant has an image: ./lab k8s images")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    kube = target.connect(args)
    print(f"== {kube.target.describe()}: {kube.server}, namespace {kube.ns}; images from {args.registry}", flush=True)
    service_docs, templates, setup = apply_services(kube, args, settings.interleave, variants)
    startups: list[dict] = []
    progress = bench.Progress(sum(len(b.suite.loads) for b in blocks), planned)
    sections: list[dict] = []
    info: dict = {}
    jdk_of: dict[str, str] = {}
    cluster = partial(ClusterWhere, kube, service_docs, templates, startups, settings.interleave)
    for block in blocks:
        where = cluster(block.variant, block.environment, block.pods)
        prefix = f"{block.variant}-" + (f"x{block.pods}-" if block.pods > 1 else "")
        block_plan = bench.Plan((block.suite,), settings, frozenset(block.modes))
        done, i = bench.measure(block_plan, out, progress, where, prefix)
        sections += done
        info = i or info
        if i:
            jdk_of[block.environment] = str(i.get("jdk"))
    if len(set(jdk_of.values())) > 1:  # e.g. jvm beside jvm21: the report names each one's JDK
        info = {**info, "jdk": "; ".join(f"{j} ({e})" for e, j in jdk_of.items())}

    command = "./lab k8s run " + " ".join(a for a in argv if a not in (str(out), args.chartjs, "--out", "--chartjs"))
    meta = report.meta(kube, args, settings, command, info, service_docs, setup, skipped, startups)
    extra = report.extra_sections(startups, sections, Path(args.local))
    (out / "startup.json").write_text(json.dumps(startups, indent=1))
    lead = scale.tables(sections) if args.profile == "scale" else []
    bench.finish(out, meta, sections, extra, lead, chartjs=args.chartjs, strict=args.strict)


if __name__ == "__main__":
    command(main)
