"""What an in-cluster report adds to the bench's: the pods' start-up, the figures beside the latest
local bench, and the setup lines (the cluster, the pods' resources, the policy probe)."""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path

from loomlab import stats
from loomlab.bench import api as bench
from loomlab.incluster.core import nodecpu
from loomlab.incluster.core.jobs import FIRST
from loomlab.incluster.core.plan import VARIANTS
from loomlab.kube import Kube, answered
from loomlab.labcluster import LOADGEN_IMAGE
from loomlab.table import Table, fmt, fmt_spread

# A start's phases as wait_ready times them, from the first pod seen: (key, column).
START_PHASES = (
    ("running_s", "container running s"),
    ("up_s", "Quarkus up s"),
    ("ready_s", "Ready s"),
    ("answered_s", "first answer s"),
)


def startup_table(startups: list[dict]) -> Table:
    """Each variant's starts (per pod count): from the pod first seen to its container running, the
    application up (its log line), Ready and the first answer through the Service; medians (min-max)."""
    t = Table(
        [
            "environment",
            "starts x pods",
            *(column for _, column in START_PHASES),
            "Quarkus started in s",
            "RSS at Ready MB",
            "RSS after load MB",
            "health",
        ]
    )
    for variant, known in VARIANTS.items():
        for pods in sorted({s.get("replicas", 1) for s in startups if s["variant"] == variant}):
            rows = [s for s in startups if s["variant"] == variant and s.get("replicas", 1) == pods and "ready_s" in s]
            if not rows:
                continue

            def spread(k, rows=rows):
                return fmt_spread(stats.Spread.of([r.get(k, math.nan) for r in rows]), 2 if k.endswith("_s") else 0)

            t.add(
                known.environment,
                f"{len(rows)} x {pods}",
                *(spread(key) for key, _ in START_PHASES),
                spread("quarkus_started_s"),
                spread("rss_ready_mb"),
                spread("rss_after_mb"),
                ", ".join(sorted({r.get("health") or "?" for r in rows})),
            )
    t.note = (
        "Each phase from the pod first seen by the lab (polled every 0.1 s): its container running, Quarkus'"
        " start-up line in its log (the node's clock), Ready (the readiness probe), the first answer to"
        f" {FIRST} through the Service. Quarkus started in: its own figure, from the JVM's start."
    )
    return t


def local_table(sections: list[dict], local: Path) -> Table | None:
    """The in-cluster figures beside the latest local bench of the same profile (same scripts)."""
    f = local / "results.json"
    if not f.exists():
        return None
    data = json.loads(f.read_text())
    envs = ["local JVM"] + [
        v.environment for v in VARIANTS.values() if any(s["environment"] == v.environment for s in sections)
    ]
    by: dict[tuple, dict] = {}
    for s in data["sections"] + sections:
        if not s.get("variant") and "capacity" not in s:  # a search's runs are of its steps
            by.setdefault((s["workload"], s["load"]), {})[s.get("environment", "local JVM")] = s
    t = Table(["workload", "load", "mode", *(f"{e} req/s" for e in envs), *(f"{e} mean ms" for e in envs)])
    for k, per_env in by.items():
        if len(per_env) < 2 or "local JVM" not in per_env:
            continue
        modes = [m for m in bench.MODE_COLUMNS if any(m in s["results"] for s in per_env.values())]
        for mode in modes:
            agg = {
                e: stats.aggregate(per_env[e]["results"][mode]["runs"])
                for e in envs
                if e in per_env and mode in per_env[e]["results"]
            }
            t.add(
                k[0],
                k[1],
                mode,
                *(fmt(agg[e]["throughput"].median) if e in agg else "-" for e in envs),
                *(fmt(agg[e]["mean"].median) if e in agg else "-" for e in envs),
            )
    return t if t.rows else None


def node_info(kube: Kube, startups: list[dict]) -> str:
    """The node the service ran on, as far as the run may read nodes (a namespaced Role may not)."""
    name = next((s["node"] for s in startups if s.get("node")), None)
    node = None
    with answered(403):
        node = kube.json(f"/api/v1/nodes/{name}")["status"]["nodeInfo"] if name else None
    return (
        f"node {name}: {node['kernelVersion']}, {node['containerRuntimeVersion']}"
        if node
        else f"node {name or '?'} (its details not readable with this run's permissions)"
    )


def images_line(kube: Kube, startups: list[dict]) -> str:
    """Which image the service's pods (each start) and the database ran, by the digest the node
    resolved (imageID)."""
    seen = {s["image"]: s.get("image_id") for s in startups if s.get("image")}
    for pod in kube.pods("app.kubernetes.io/name=postgres"):
        for c in pod["status"].get("containerStatuses") or []:
            seen[c["image"]] = c.get("imageID")
    return "; ".join(f"{image} (imageID {image_id})" for image, image_id in sorted(seen.items()))


def meta(
    kube: Kube,
    args: argparse.Namespace,
    settings: bench.RunSettings,
    command: str,
    info: dict,
    service_docs: list[dict],
    setup: list[str],
    skipped: tuple[str, ...],
    startups: list[dict],
) -> dict:
    version = kube.json("/version")
    limits = next(d for d in service_docs if d["kind"] == "Deployment")["spec"]["template"]["spec"]["containers"][0][
        "resources"
    ]
    # Every run on the loadgen image, a split's runners too (the report's meta says how many).
    engines = [bench.Loadgen("loadgen").version() + f" ({LOADGEN_IMAGE})"]
    pods = f"{args.replicas} per variant"
    if args.profile == "scale":
        pods = "the worker mode on 1, 2 and 4 pods, virtual and reactive on one"
    return bench.run_meta(
        settings,
        info,
        command,
        engines,
        title="loom-lab in-cluster report",
        k6_where="one Kubernetes Job per run (deploy/k8s/jobs made into a loadgen Job: bench.jobrun sends the"
        " bench's own load), scheduled by the cluster (the node line below says where the service ran)",
        jvm_where=(
            " (each mode's own Deployment, fresh pods per suite, up side by side for the rounds)"
            if settings.interleave
            else " (a fresh pod per suite and mode, Recreate)"
        ),
        setup=[
            f"- cluster: Kubernetes {version.get('gitVersion')} at {kube.server} ({kube.target.describe()}),"
            f" namespace {kube.ns}; {node_info(kube, startups)}",
            f"- images from {args.registry}, as the pods ran them: {images_line(kube, startups)}",
            f"- service pods: {pods} (the Service spreads the load), each with requests"
            f" {limits['requests']}, limits {limits['limits']} ("
            + (
                "deploy/k8s/local: the two-cores component"
                if args.cpu_limit is None
                else f"--cpu-limit {args.cpu_limit:g}"
            )
            + ");"
            " images built here and pushed (./lab k8s images --push)",
            *(f"- {line}" for line in setup),
            *(f"- skipped: {s}" for s in skipped),
        ],
    )


def prometheus_table(sections: list[dict]) -> Table | None:
    """The service's figures of every run two ways, medians over a mode's runs: the lab's own
    scrapes (each pod's /q/metrics through the API server, every second) and the namespace's
    Prometheus (PromQL over the run's window, scraped every 5 s), with Prometheus / lab."""
    t = Table(
        [
            "load",
            "mode",
            "runs",
            "run s",
            "threads: lab / Prometheus",
            "CPU cores: lab / Prometheus",
            "ratio threads, CPU",
        ]
    )

    def med(values) -> float:
        return stats.Spread.of(values).median

    for s in sections:
        for mode, res in s.get("results", {}).items():
            runs = [r for r in res.get("runs", []) if r.get("prometheus")]
            if not runs:
                continue

            threads = med([r.get("peak_live_threads", math.nan) for r in runs])
            p_threads = med([r["prometheus"]["threads_total_max"] for r in runs])
            cpu = med([r.get("cpu_s", math.nan) / r["wall_s"] for r in runs if r.get("wall_s")])
            p_cpu = med([r["prometheus"]["cpu_cores"] for r in runs])
            t.add(
                s["load"],
                mode,
                str(len(runs)),
                fmt(med([r.get("wall_s", math.nan) for r in runs]), 1),
                f"{fmt(threads, 0)} / {fmt(p_threads, 0)}",
                f"{fmt(cpu, 2)} / {fmt(p_cpu, 2)}",
                f"{fmt(stats.ratio(p_threads, threads), 2)}, {fmt(stats.ratio(p_cpu, cpu), 2)}",
            )
    return t if t.rows else None


def extra_sections(startups: list[dict], sections: list[dict], local: Path) -> list[str]:
    extra = [
        "## Start-up in the cluster",
        "",
        "Each suite and mode gets fresh pods, timed from the first pod seen (polled every 0.1 s through the"
        " API; in deploy/k8s/local the startup and readiness probes each ask every second); RSS from every pod's"
        " /q/metrics (their sum) at Ready and after the suite's runs. Median (min-max).",
        "",
        startup_table(startups).markdown(),
        "",
    ]
    rounds = [s for s in sections if "capacity" not in s]  # a search's runs mix its rates: its tables are its own
    extra += nodecpu.section(rounds)
    both = prometheus_table(rounds)
    if both:
        extra += [
            "## The service's figures from Prometheus",
            "",
            "Each run's pods as the lab's own scrapes saw them (every pod's /q/metrics through the API"
            " server, every second: what the tables above use) and as the namespace's Prometheus has them"
            " (components/monitoring, every 5 s; PromQL over the run's window:"
            " `max_over_time(sum(jvm_threads_live_threads{pod=~...})[w:5s])`,"
            " `sum(rate(process_cpu_time_ns_total{pod=~...}[w])) / 1e9`). Medians over the runs. A run shorter"
            " than two scrapes has no CPU rate in Prometheus ('-'): the lab's own scrapes stay the tables' source.",
            "",
            both.markdown(),
            "",
        ]
        print(f"\nthe service's figures, the lab's scrapes / Prometheus:\n{both.text()}")
    beside = local_table(sections, local)
    if beside:
        extra += [
            f"## Beside the local bench ({local.resolve().name})",
            "",
            "Same k6 scripts and loads; local = `./lab bench` on this machine (k6 and the JVM on the same"
            " cores), medians.",
            "",
            beside.markdown(),
            "",
        ]
    print("\n" + "\n".join(extra[:1] + [startup_table(startups).text()]))
    if beside:
        print(f"\nbeside the local bench:\n{beside.text()}")
    return extra
