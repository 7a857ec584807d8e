"""The command line of `./lab k8s run` (see __init__.py)."""

from __future__ import annotations

import json
import sys
from functools import partial
from pathlib import Path

from loomlab import LabError, command
from loomlab.bench import api as bench
from loomlab.incluster import cli
from loomlab.incluster.core import report, target
from loomlab.incluster.core.measure import ClusterWhere
from loomlab.incluster.core.plan import ClusterPlan
from loomlab.incluster.core.services import Services
from loomlab.incluster.experiments import scale


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    args = cli.run(argv)
    plan = ClusterPlan.of(args)
    plan.announce()
    if args.plan:
        return
    if not plan.variants:
        raise LabError("no service variant has an image: ./lab k8s images")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    images, kube = target.pushed(args.registry), target.connect(args)
    print(f"== {kube.target.describe()}: {kube.server}, namespace {kube.ns}; images from {args.registry}", flush=True)
    services = Services.up(kube, plan, images, args.cpu_limit)
    settings = plan.settings
    startups: list[dict] = []
    progress = bench.Progress(sum(len(b.suite.loads) for b in plan.blocks), plan.seconds)
    sections: list[dict] = []
    info: dict = {}
    jdk_of: dict[str, str] = {}
    cluster = partial(ClusterWhere, kube, services.docs, services.templates, startups, settings.interleave)
    for block in plan.blocks:
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
    meta = report.meta(kube, args, settings, command, info, services.docs, services.setup, plan.skipped, startups)
    extra = report.extra_sections(startups, sections, Path(args.local))
    (out / "startup.json").write_text(json.dumps(startups, indent=1))
    lead = scale.tables(sections) if args.profile == "scale" else []
    bench.finish(out, meta, sections, extra, lead, chartjs=args.chartjs, strict=args.strict)


if __name__ == "__main__":
    command(main)
