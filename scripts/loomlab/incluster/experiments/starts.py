"""`./lab k8s starts`: what a start is worth in the cluster, per image.

Rounds of fresh pods: each round starts one pod of every variant asked for (the JVM image, the JVM +
AOT cache image, native where its image was pushed), one variant's pod up at a time, in an order
rotated every round so the node's drift reaches every image alike. Each start is timed from the pod
first seen to its container running, Quarkus' start-up line, Ready and the first answer through
the Service (ClusterService.wait_ready), then the pod is removed before the next one starts.
Medians (min-max) per image, and each image's phases over the JVM's, paired by round. Writes
starts.md and starts.json.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

from loomlab import LabError, command, proc, stats
from loomlab.bench import api as bench
from loomlab.incluster import cli
from loomlab.incluster.core import jobs, plan, report, services, target
from loomlab.incluster.core.lanes import MODE_LABEL
from loomlab.incluster.core.measure import ClusterService
from loomlab.kube import Kube
from loomlab.table import Table, fmt_spread

MODE = bench.Lane(bench.VIRTUAL)  # the mode whose endpoint answers first; a start is the same in every mode


def scaled_to_zero(kube: Kube, variant: str, timeout_s: float = 120) -> None:
    """The variant's Deployment at 0 replicas and its pods gone (their terminating included)."""
    name = plan.VARIANTS[variant].name
    kube.scale_deployment(name, 0)
    # The variant's own pods, not a mode's copy (`./lab k8s run` gives each mode a Deployment of its own).
    selector = f"app.kubernetes.io/component=service,app.kubernetes.io/variant={variant},!{MODE_LABEL}"
    if not proc.wait_until(lambda: not kube.pods(selector), timeout_s, 0.5):
        raise LabError(f"{name}: pods still there {timeout_s:.0f} s after it was scaled to 0")


def ratios(starts: list[dict], variant: str, base: str) -> dict[str, stats.Spread]:
    """Each phase of `variant` over `base`'s in the same round: the median (min-max) of the rounds."""
    by_round = {(s["variant"], s["round"]): s for s in starts}
    found = {}
    for key, _ in report.START_PHASES:
        found[key] = stats.Spread.of(
            [
                by_round[(variant, r)][key] / by_round[(base, r)][key]
                for (v, r) in by_round
                if v == variant and (base, r) in by_round and by_round[(base, r)].get(key)
            ]
        )
    return found


def ratio_table(starts: list[dict], variants: list[str]) -> Table | None:
    """Every other image's phases over the first's, paired by round; None with one image."""
    if len(variants) < 2:
        return None
    base = variants[0]
    t = Table(["image", *(f"{column} / {base}'s" for _, column in report.START_PHASES)])
    for v in variants[1:]:
        found = ratios(starts, v, base)
        t.add(plan.VARIANTS[v].environment, *(fmt_spread(found[k], 2, "x") for k, _ in report.START_PHASES))
    return t


def write(out: Path, args, starts: list[dict], variants: list[str], node: str) -> Path:
    """starts.md: how it ran, the phases per image, the ratios; starts.json: every start."""
    (out / "starts.json").write_text(json.dumps({"rounds": args.rounds, "starts": starts}, indent=1))
    parts = [
        "# loom-lab: what a start is worth in the cluster",
        f"- {time.strftime('%Y-%m-%d %H:%M %Z')}; {node}",
        f"- {args.rounds} rounds; in each, one fresh pod of every image ({', '.join(variants)}), one up at a time,"
        " the order rotated every round; each pod removed before the next starts",
        "",
        report.startup_table(starts).markdown(),
    ]
    paired = ratio_table(starts, variants)
    if paired is not None:
        parts += ["", "## Each image against the first, paired by round", "", paired.markdown()]
    path = out / "starts.md"
    path.write_text("\n".join(parts) + "\n")
    return path


def main(argv):
    args = cli.starts(argv)
    variants, skipped = plan.variants(args.variants, args.registry)
    for why in skipped:
        print(f"skipped: {why}", flush=True)
    if not variants:
        raise LabError("no service variant has an image: ./lab k8s images")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    kube = target.connect(args)
    images = target.pushed(args.registry)
    names = [plan.VARIANTS[v].name for v in variants]
    print(f"== {kube.target.describe()}: applying deploy/k8s/local ({', '.join(variants)})", flush=True)
    service_docs, job_docs, _ = services.apply_local(kube, images, names)
    deployments = {d["metadata"]["name"]: d for d in service_docs if d["kind"] == "Deployment"}
    env = {name: d["spec"]["template"]["spec"]["containers"][0].get("env", []) for name, d in deployments.items()}
    suite = bench.sleep.suites(bench.Scale())[0]
    templates = jobs.job_templates(job_docs, images)
    for v in variants:
        scaled_to_zero(kube, v)
    starts: list[dict] = []
    try:
        for r in range(args.rounds):
            for v in stats.rotated(variants, r):
                service = ClusterService(
                    kube, v, suite, MODE, f"start{r + 1}", env[plan.VARIANTS[v].name], templates, out, starts
                )
                service.startup["round"] = r + 1
                service.wait_ready()
                t = service.startup
                print(
                    f"   round {r + 1} {v}: running {t['running_s']:.2f} s, Quarkus up {t['up_s']:.2f} s,"
                    f" Ready {t['ready_s']:.2f} s, first answer {t['answered_s']:.2f} s",
                    flush=True,
                )
                scaled_to_zero(kube, v)
    finally:
        for name in names:  # deploy/k8s/local's own pod count again
            again = deployments[name]["spec"].get("replicas", 1)
            kube.scale_deployment(name, again)
    node = report.node_info(kube, starts)
    path = write(out, args, starts, variants, node)
    print("\n" + path.read_text(), flush=True)
    print(f"report: {path}", flush=True)


if __name__ == "__main__":
    command(main, sys.argv[1:])
