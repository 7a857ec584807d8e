"""`./lab k8s netpol --cost`: what enforcing the NetworkPolicies costs the A3 answer, on the lab's
own cluster (whose policy engine it can turn off). Per mode (worker, virtual): the A3 load as a loadgen
Job against the service, in rounds that run it once with the engine on and once with it off, the
order rotated every round, so drift hits both alike; per round the ratio enforced / not enforced
of req/s and p99, their medians with the bench's distribution-free interval; the engine's own CPU
and memory while it enforced. The probe pods of `./lab k8s netpol` are not needed: the A3 Job's
traffic crosses service-from-namespace-only, and the service's crosses postgres-from-service-only."""

from __future__ import annotations

import json
import time
from pathlib import Path
from statistics import median

from loomlab.bench import api as bench
from loomlab.incluster.core import services
from loomlab.incluster.core.measure import ClusterService
from loomlab.incluster.core.node import LabNode, needed
from loomlab.incluster.core.plan import VARIANTS
from loomlab.table import Table, fmt

VARIANT = "jvm"
MODES = (bench.Lane(bench.WORKER), bench.Lane(bench.VIRTUAL))
# One loadgen pod per run, the service scraped as `./lab k8s run` scrapes it.
SETTINGS = bench.RunSettings()


def measured(
    node: LabNode, service: ClusterService, load: bench.Load, mode: bench.Lane, enforced: bool, r: int, out: Path
) -> dict:
    """One A3 run with the engine as `enforced` says; the engine's CPU per second of the run."""
    settle = node.policy_engine(enforced)
    cpu0, _ = node.policy_engine_usage()
    state = "enforced" if enforced else "off"
    figures = service.run(
        load, mode, out / "runs" / f"a3-{mode.key}-{state}-r{r + 1}.json", f"round {r + 1} {mode.key} {state}", SETTINGS
    )
    cpu1, rss = node.policy_engine_usage()
    figures.update(engine_cpu_s=cpu1 - cpu0, engine_rss_mb=rss, engine_settle_s=settle)
    print(
        f"   round {r + 1} {mode.key} {state}: {fmt(figures['throughput'])} req/s, p99 {fmt(figures['p99'])} ms"
        + (f"; engine {cpu1 - cpu0:.2f} s CPU, {rss:.0f} MiB" if enforced else ""),
        flush=True,
    )
    return figures


def ratios(runs: dict, key: str) -> tuple[float, tuple[float, float, float] | None]:
    per_round = [on[key] / off[key] for on, off in zip(runs[True], runs[False], strict=True) if off[key]]
    return median(per_round), bench.interval(per_round)


def table(results: dict) -> Table:
    """Per mode: req/s of the load (setup excluded) and p99, enforced / off, the ratios' medians with
    their interval; the setup's wait for the service (a new pod waits for the engine to admit it);
    the engine's CPU per run and memory."""
    t = Table(
        [
            "mode",
            "rounds",
            "req/s enforced / off",
            "ratio (interval)",
            "p99 ms enforced / off",
            "ratio (interval)",
            "setup s enforced / off",
            "engine CPU s per run",
            "engine RSS MiB",
        ]
    )
    for mode, runs in results.items():
        cells = [mode, str(len(runs[True]))]
        for key in ("throughput", "p99"):
            m, iv = ratios(runs, key)
            on, off = median(r[key] for r in runs[True]), median(r[key] for r in runs[False])
            span = f" ({iv[0]:.3f}-{iv[1]:.3f}, {iv[2]:.0%})" if iv else " (too few rounds)"
            cells += [f"{fmt(on, 0)} / {fmt(off, 0)}", f"{m:.3f}{span}"]
        setup = [median(r.get("setup_s", 0.0) for r in runs[state]) for state in (True, False)]
        cells += [f"{setup[0]:.2f} / {setup[1]:.2f}"]
        cells += [
            fmt(median(r["engine_cpu_s"] for r in runs[True]), 2),
            fmt(max(r["engine_rss_mb"] for r in runs[True]), 0),
        ]
        t.add(*cells)
    return t


def cost(args, node: LabNode | None) -> None:
    lab = needed(node, args.kubeconfig, "--cost turns the lab's own policy engine off and on")
    run = services.OneVariant.start(args, VARIANTS[VARIANT].name)
    load = run.suite.loads[0]
    env = run.container.get("env", [])
    results: dict = {}
    try:
        for mode in MODES:
            service = ClusterService(run.kube, VARIANT, run.suite, mode, "netpol-cost", env, run.templates, run.out, [])
            service.wait_ready()
            for w in range(2):
                service.run(
                    load,
                    mode,
                    run.out / "warmup" / f"a3-{mode.key}-{w + 1}.json",
                    f"warm-up {mode.key}",
                    SETTINGS,
                    warmup=True,
                )
            results[mode.key] = {True: [], False: []}
            for r in range(args.rounds):
                for enforced in (True, False) if r % 2 == 0 else (False, True):
                    results[mode.key][enforced].append(measured(lab, service, load, mode, enforced, r, run.out))
            service.stop()
    finally:
        lab.policy_engine(True)
    t = table(results)
    (run.out / "netpol-cost.json").write_text(
        json.dumps({m: {str(k): v for k, v in r.items()} for m, r in results.items()}, indent=1, default=str)
    )
    text = (
        f"# What enforcing the NetworkPolicies costs the A3 answer\n\n- date: {time.strftime('%Y-%m-%d %H:%M %Z')}\n"
        f"- command: `./lab k8s netpol --cost --rounds {args.rounds}`\n"
        f"- load: {load.name}, one load Job per run, service {VARIANTS[VARIANT].name}; per mode, rounds of one run"
        " enforced and one not, the order rotated\n"
        "- ratio: enforced / off per round, the median and the bench's distribution-free interval\n\n"
        f"{t.markdown()}\n"
    )
    (run.out / "netpol-cost.md").write_text(text)
    print(text)
