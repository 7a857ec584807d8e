"""The report of a bench: tables per load, verdicts, report.md, report.html, results.json,
--strict, and the comparison of two reports."""

from __future__ import annotations

import json
import math
import os
import re
import sys
from collections.abc import Sequence
from pathlib import Path

from loomlab import htmlreport
from loomlab import labreport as lr

from . import verdict
from .answer import AT_BOUND, answer_table, winners
from .loads import MODES, Load, effective_bound, mode_bound
from .workloads.ingest import INGEST_DOMAINS, INGEST_TRENDS, SEED_D

# The environment of a run on this machine, as reports name it (the cluster's are named by variant).
LOCAL = "local JVM"


def load_table(load: Load, results: dict, pools: dict) -> lr.Table:
    """results: mode -> {"runs": [...], "warmup": {...}}"""
    if load.extra:
        headers = ["mode", *(label for _, label, _ in load.extra), "seed elapsed ms", "requests", "errors %"]
        t = lr.Table(headers)
        for mode in load.modes:
            r = results.get(mode)
            if not r:
                continue
            agg = lr.aggregate(r["runs"])
            cells = [lr.fmt_spread(agg.get(m, lr.Spread.of([])), 0) for m, _, _ in load.extra]
            seed = load.seed.get(mode, {}).get("elapsed")
            t.add(
                mode,
                *cells,
                lr.fmt(seed, 0),
                lr.fmt(agg["requests"].median, 0),
                lr.fmt(agg["error_rate"].median * 100, 2),
            )
        return t

    expected = load.expect(pools) if load.expect else {}
    extra = ["E[max] ms", "mean excess"] if expected else []
    verdict = ["verdict"] if load.rate is not None else []
    t = lr.Table(
        [
            "mode",
            "requests",
            "req/s",
            "bound",
            "eff.",
            "mean ms",
            "sd",
            "min",
            "p50",
            "p90",
            "p95",
            "p99",
            "max",
            "errors %",
            "dropped",
            *verdict,
            *extra,
            "last warm-up req/s",
            "seed req/s",
            "seed mean",
        ]
    )
    for mode in load.modes:
        r = results.get(mode)
        if not r:
            continue
        agg = lr.aggregate(r["runs"])
        bound = effective_bound(load, mode, pools)
        thr = agg["throughput"]
        seed = load.seed.get(mode, {})
        warm = r.get("warmup") or {}
        t.add(
            mode,
            lr.fmt(agg["requests"].median, 0),
            lr.fmt_spread(thr, 1),
            lr.fmt(bound, 0),
            lr.fmt(lr.efficiency(thr.median, bound) * 100, 0, " %"),
            lr.fmt_spread(agg["mean"]),
            lr.fmt(agg["sd"].median),
            lr.fmt(agg["min"].median),
            lr.fmt(agg["p50"].median),
            lr.fmt(agg["p90"].median),
            lr.fmt(agg["p95"].median),
            lr.fmt(agg["p99"].median),
            lr.fmt(agg["max"].median),
            lr.fmt(agg["error_rate"].median * 100, 2),
            lr.fmt(agg["dropped"].median, 0),
            *([open_verdict(load, mode, pools, agg)] if verdict else []),
            *(
                [lr.fmt(expected["mean"]), lr.fmt((agg["mean"].median / expected["mean"] - 1) * 100, 1, " %")]
                if expected
                else []
            ),
            lr.fmt(warm.get("throughput"), 1),
            lr.fmt(seed.get("throughput")),
            lr.fmt(seed.get("mean"), 0),
        )
    return t


def open_verdict(load: Load, mode: str, pools: dict, agg: dict) -> str:
    """The verdict of an open load's median run in a mode (see lr.open_verdict)."""
    assert load.rate is not None, "an open load"
    return lr.open_verdict(load.rate, mode_bound(load, mode, pools), agg["dropped"].median, agg["error_rate"].median)


def run_failed(load: Load, mode: str, pools: dict, run: dict) -> bool:
    """A measured run that must fail --strict: k6 crossed a threshold, unless it is an open run
    above this mode's bound, whose drops and errors are the overload the load was made to show."""
    if load.rate is not None:
        return not lr.open_kept_up(run["dropped"], run["error_rate"]) and not lr.above_bound(
            load.rate, mode_bound(load, mode, pools)
        )
    return bool(run.get("k6_exit"))


def server_table(load: Load, results: dict, native: bool = False) -> lr.Table:
    t = lr.Table(
        [
            "mode",
            "CPU s",
            "CPU ms/req",
            "peak in-flight",
            "peak threads",
            "peak RSS MB",
            "peak worker active",
            "peak worker queue",
            "thread wait max ms",
            "peak db awaiting",
            "db wait max ms",
            "body read max ms",
            "503s",
            "GC pauses",
            "pinned",
        ]
    )
    for mode in load.modes:
        r = results.get(mode)
        if not r:
            continue
        agg = lr.aggregate(r["runs"])

        def get(k, agg=agg):
            return agg.get(k, lr.Spread.of([])).median

        cpu_per_req = lr.ratio(get("cpu_s") * 1000, get("requests"))
        # The reactive clients wait in their own bulkhead; threaded requests for a permit, then
        # Agroal (Agroal alone with the bulkhead off): each request's wait for a connection.
        rx = mode in ("reactive", "virtual+rx")
        awaiting = (
            get("peak_rx_db_awaiting") if rx else lr.nansum(get("peak_db_awaiting"), get("peak_bulkhead_waiting"))
        )
        max_wait_ms = 1000 * (get("peak_bulkhead_wait_max_s") if rx else get("peak_permit_wait_max_s"))
        t.add(
            mode,
            lr.fmt(get("cpu_s"), 2),
            lr.fmt(cpu_per_req, 3),
            lr.fmt(get("peak_in_flight"), 0),
            lr.fmt(get("peak_live_threads"), 0),
            lr.fmt(get("peak_rss_bytes") / 1e6, 0),
            lr.fmt(get("peak_worker_active"), 0),
            lr.fmt(get("peak_worker_queued"), 0),
            lr.fmt(get("peak_thread_wait_max_s") * 1000, 0),
            lr.fmt(awaiting, 0),
            lr.fmt(max_wait_ms, 0),
            lr.fmt(get("peak_body_read_max_s") * 1000, 0),
            lr.fmt(get("lab_refused_503_count"), 0) if "lab_refused_503" in load.counters else "-",
            lr.fmt(get("delta_gc_pauses"), 0),
            # micrometer-java21's virtual-thread meters are incomplete in native images.
            "n/a (native)" if native else lr.fmt(get("delta_pinned"), 0),
        )
    return t


def runners_table(load: Load, results: dict) -> lr.Table | None:
    """Where a load ran on several k6 runners: each mode's merged figures (medians over the rounds)
    beside each runner's own (k6's summary of its segment), and how far apart the runners started."""
    t = lr.Table(["mode", "runner", "requests", "req/s", "p50", "p99", "max", "errors %", "dropped", "start skew ms"])
    for mode in load.modes:
        runs = [run for run in results.get(mode, {}).get("runs", []) if run.get("runner_figures")]
        if not runs:
            continue
        agg = lr.aggregate(runs)
        skew = lr.Spread.of([run["start_skew_s"] * 1000 for run in runs])
        t.add(
            mode,
            f"merged ({len(runs[0]['runner_figures'])})",
            lr.fmt(agg["requests"].median, 0),
            lr.fmt_spread(agg["throughput"], 1),
            lr.fmt(agg["p50"].median),
            lr.fmt(agg["p99"].median),
            lr.fmt(agg["max"].median),
            lr.fmt(agg["error_rate"].median * 100, 2),
            lr.fmt(agg["dropped"].median, 0),
            lr.fmt_spread(skew, 0),
        )
        for i in range(len(runs[0]["runner_figures"])):
            each = lr.aggregate([run["runner_figures"][i] for run in runs])
            t.add(
                mode,
                str(i),
                lr.fmt(each["requests"].median, 0),
                lr.fmt_spread(each["throughput"], 1),
                lr.fmt(each["p50"].median),
                lr.fmt(each["p99"].median),
                lr.fmt(each["max"].median),
                lr.fmt(each["error_rate"].median * 100, 2),
                lr.fmt(each["dropped"].median, 0),
                "",
            )
    return t if t.rows else None


def replicas_table(load: Load, results: dict) -> lr.Table | None:
    """Where a mode ran on several pods: each pod's share of the requests (read from its own
    /q/metrics; medians over the rounds), the spread the Service gave the load."""
    t = lr.Table(["mode", "pod", "requests", "share %"])
    for mode in load.modes:
        runs = [
            run["pod_requests"] for run in results.get(mode, {}).get("runs", []) if len(run.get("pod_requests", [])) > 1
        ]
        if not runs:
            continue
        for i in range(len(runs[0])):
            share = lr.Spread.of([100 * r[i] / sum(r) for r in runs if sum(r)])
            t.add(mode, str(i + 1), lr.fmt(lr.Spread.of([r[i] for r in runs]).median, 0), lr.fmt_spread(share, 1))
    return t if t.rows else None


def ingest_setup(section: dict) -> str:
    """Where a chunk stream ran: its variant, else its environment ("local" on this machine's JVM,
    "in-cluster JVM", ...)."""
    environment = section.get("environment", LOCAL)
    return section.get("variant") or ("local" if environment == LOCAL else environment)


def ingest_summary(sections: list[dict]) -> lr.Table:
    """records/s of every (domain, writes, mode) of the ingest suites beside the COPY anchor."""
    rows = []
    for sec in sections:
        if sec["workload"] not in INGEST_DOMAINS:
            continue
        writes = sec["env"].get("WRITES", "?")
        for mode, r in sec["results"].items():
            agg = lr.aggregate(r["runs"])
            rows.append((sec["workload"], ingest_setup(sec), writes, mode, agg, int(sec["env"].get("CHUNK", 100))))
    t = lr.Table(
        [
            "domain",
            "setup",
            "writes",
            "chunk",
            "mode",
            "records/s",
            "best chunk",
            "vs COPY",
            "vs sequential",
            "chunk p50 ms",
            "chunk p99 ms",
            "parent ms",
            "skill ms",
            "text ms",
            "embedding ms",
            "CPU ms/1k rec",
            "errors %",
            "seed rec/s",
        ]
    )

    def rate(r):
        return r[4]["records_per_s"].median

    for key in dict.fromkeys(r[:2] for r in rows):
        ours = [r for r in rows if r[:2] == key]
        copy_rate = next((rate(r) for r in ours if r[2] == "copy"), math.nan)
        seq = {(r[3], r[5]): rate(r) for r in ours if r[2] == "sequential"}
        # The fastest chunk size of each (writes, mode), where more than one was run.
        best: dict[tuple, tuple] = {}
        for r in ours:
            if r[2:4] not in best or rate(r) > rate(best[r[2:4]]):
                best[r[2:4]] = r
        sizes = {r[2:4]: {x[5] for x in ours if x[2:4] == r[2:4]} for r in ours}
        for domain, setup, writes, mode, agg, chunk in ours:

            def med(k, agg=agg):
                return agg.get(k, lr.Spread.of([])).median

            seed = SEED_D.get(writes, {}).get("worker", {}).get("records_per_s") if chunk == 100 else None
            is_best = len(sizes[(writes, mode)]) > 1 and best[(writes, mode)][5] == chunk
            t.add(
                domain,
                setup,
                writes,
                chunk,
                mode,
                lr.fmt_spread(agg["records_per_s"], 0),
                "best" if is_best else "",
                lr.fmt(lr.ratio(med("records_per_s"), copy_rate), 2, "x"),
                lr.fmt(lr.ratio(med("records_per_s"), seq.get((mode, chunk), math.nan)), 2, "x"),
                lr.fmt(med("p50")),
                lr.fmt(med("p99")),
                *(lr.fmt(med(metric)) for metric, _, _ in INGEST_TRENDS),
                lr.fmt(med("cpu_ms_per_1k_records"), 0),
                lr.fmt(med("error_rate") * 100, 2),
                lr.fmt(seed) if setup == "local" and domain == "recruits" else "-",
            )
    return t


# A suite's table across its loads, by the name its Suite gives (loads.Suite.summary).
SUMMARIES = {"ingest": ingest_summary}


def ratio_line(load: Load, results: dict) -> str:
    """Each mode against the worker pool, the baseline of every comparison."""
    others = [m for m in MODES if m != "worker" and m in results]
    if "worker" not in results or not others or load.extra:
        return ""
    agg = {m: lr.aggregate(results[m]["runs"]) for m in ["worker", *others]}
    if load.rate is not None:
        # Every mode is offered the same rate: the difference is in latency and drops.
        w = agg["worker"]
        parts = [
            f"worker/{m} mean latency {lr.fmt(lr.ratio(w['mean'].median, agg[m]['mean'].median), 2)}x, "
            f"p99 {lr.fmt(lr.ratio(w['p99'].median, agg[m]['p99'].median), 2)}x"
            for m in others
        ]
        dropped = ", ".join(f"{m} {lr.fmt(agg[m]['dropped'].median, 0)}" for m in agg)
        return f"same arrivals in every mode: {'; '.join(parts)}; dropped {dropped}"
    worker_rate = agg["worker"]["throughput"].median
    parts = []
    for m in others:
        sw, sm = load.seed.get("worker", {}).get("throughput"), load.seed.get(m, {}).get("throughput")
        seed = f" (seed {lr.fmt(lr.ratio(sm, sw), 1)}x)" if sw and sm else ""
        parts.append(f"{m}/worker throughput: {lr.fmt(lr.ratio(agg[m]['throughput'].median, worker_rate), 2)}x{seed}")
    return "; ".join(parts)


def write_report(out: Path, meta: dict, sections: list[dict], appendix: Sequence[str] = (), lead: Sequence[str] = ()):
    md = [f"# {meta.get('title', 'loom-lab bench report')}", "", f"Profile: {meta['profile']}", ""]
    md += [
        f"- date: {meta['date']}",
        f"- command: `{meta['command']}`",
        f"- machine: {meta['machine']}",
        f"- JDK: {meta['info'].get('jdk')} ({meta['info'].get('vm')}), Quarkus {meta['info'].get('quarkus')}, "
        f"{meta['info'].get('imageKind')}, {meta['info'].get('cpus')} CPUs",
        f"- k6: {meta['k6']}, "
        + meta.get("k6_where", "on the same machine as the service")
        + (
            f"; {meta['runners']} runners per run (k6 execution segments, merged from raw samples)"
            if meta.get("runners", 1) > 1
            else ""
        ),
        *meta.get("setup", []),
        f"- k6 web-dashboard exports (runs/*.html): {meta.get('dashboards', 'auto')}"
        + (
            " (every measured run but the closed A3 load, where k6 is the bottleneck and the export costs it"
            " 3-7 % of the virtual throughput)"
            if meta.get("dashboards", "auto") == "auto"
            else ""
        ),
        f"- warm-up (not counted), per mode in its own JVM{meta.get('jvm_where', '')}:"
        f" at least {meta['warmup_seconds']:.0f} s of load and"
        f" until two runs in a row differ by < {meta['warmup_tolerance'] * 100:.0f} % (at most {meta['warmups']}"
        f" runs); measured runs per mode: {meta['repeats']}"
        " (fewer where a load says so, e.g. tasks: one k6 run of 3 requests)",
        "- figures: median of the measured runs, (min-max) where they differ; latency in ms;"
        " bound = Little's law, concurrency / latency; eff. = throughput / bound",
        "- open model (k6 constant-arrival-rate): req/s = requests / seconds of arrivals when the run kept up,"
        " else k6's rate over the whole run (the drain included, when the service was still busy); the bound is"
        " min(rate, the mode's own bound); dropped arrivals or errors are a failure below the mode's bound and"
        " the expected overload above it (column 'verdict')",
        f"- server peaks come from scrapes every {meta['sample_period']} s: a run shorter than that shows"
        " only its before and after",
        "",
    ]
    answer = answer_table(sections, LOCAL)
    if answer.rows:
        md += [
            "## The answer",
            "",
            "Per load, from paired rounds (each round runs every mode once, alone, in an order rotated every"
            " round, so drift hits every mode alike): the ratio of two modes in each round, the median of those"
            " ratios, and its distribution-free interval from order statistics (the coverage beside the rounds)."
            f" A mode wins where that interval lies above 1 + {verdict.TIE * 100:.0f} % against every other;"
            f" modes tie where it lies within {verdict.TIE * 100:.0f} %; when every mode ties on req/s, p99"
            f" decides the same way (margin {verdict.TIE_P99 * 100:.0f} %); leaders the rounds cannot order"
            " win together where each is ahead of every other mode ('between them: cannot tell');"
            f" otherwise the answer is 'cannot tell', after up to {meta.get('max_rounds', '?')} rounds."
            " The bound that binds is the losers'"
            f" own Little's-law bound when they reach {AT_BOUND * 100:.0f} % of it, else what the workload"
            " shares (CPU, the database). Every figure behind it follows, load by load."
            + (
                ""
                if meta.get("interleave", True)
                else " These rounds ran in blocks, one mode after another"
                " (a pod per mode): drift between blocks is not cancelled."
            ),
            "",
            answer.markdown(),
            "",
        ]
    md += list(lead)  # an answer of the caller's own (the in-cluster scale-out tables), before the sections
    for s in sections:
        expectation = ""
        if s.get("expected"):
            e = s["expected"]
            expectation = (
                f"Expected latency with every dependency answering on time: E[max] = {e['mean']:.1f} ms, "
                f"p95 = {e['p95']:.1f} ms (the slowest of the configured uniform delays); "
                "'mean excess' is the measured mean over E[max]."
            )
        md += [
            f"## {s['workload']}: {s['load']} ({s.get('environment', LOCAL)})",
            "",
            s["description"],
            "",
            expectation,
            "",
            f"Load: `{s['script']}` with {s['env']}; service env {s['server_env']}; pools {s['pools']}",
            "",
            s["table"].markdown(),
            "",
        ]
        if s["ratio"]:
            md += [s["ratio"], ""]
        md += [
            "Server side (from /q/metrics, scraped every "
            f"{meta['sample_period']} s; medians over the measured runs):",
            "",
            s["server"].markdown(),
            "",
        ]
        if s.get("replicas"):
            md += ["Service pods (each pod's requests, from its own /q/metrics):", "", s["replicas"].markdown(), ""]
        if s.get("runners"):
            md += [
                "k6 runners (execution segments, started paused and resumed together): the merged row is"
                " computed from every runner's raw samples (percentiles of the union, never an average of the"
                " runners'); each runner's row is k6's own summary of its segment:",
                "",
                s["runners"].markdown(),
                "",
            ]
        if s.get("summary"):
            md += [f"### {s['workload']}: every load of the suite", "", s["summary"].markdown(), ""]
    startups = sorted(out.parent.glob("startup-*/report.md"))
    if startups:
        # The latest `./lab startup` on this machine: start-up and memory belong beside throughput.
        md += [
            "## Start-up and memory (latest ./lab startup)",
            "",
            startups[-1].read_text().split("\n", 2)[-1],
            f"(from {startups[-1].parent.name})",
            "",
        ]
    (out / "report.md").write_text("\n".join(md + list(appendix)))


def compare(a: Path, b: Path):
    """Two bench reports side by side: every (workload, load, mode) both measured, B against A."""
    ra, rb = (json.loads((d / "results.json").read_text()) for d in (a, b))

    def key(s):
        return (s["workload"], s.get("variant", ""), s["load"], s.get("environment", LOCAL))

    sa = {key(s): s for s in ra["sections"]}
    t = lr.Table(
        [
            "workload",
            "load",
            "mode",
            "req/s A",
            "req/s B",
            "change",
            "p95 A",
            "p95 B",
            "change",
            "errors A %",
            "errors B %",
        ]
    )
    for s in rb["sections"]:
        other = sa.get(key(s))
        if not other:
            continue
        for mode, r in s["results"].items():
            if mode not in other["results"]:
                continue
            x, y = lr.aggregate(other["results"][mode]["runs"]), lr.aggregate(r["runs"])

            def ch(k, x=x, y=y):
                return lr.fmt((lr.ratio(y[k].median, x[k].median) - 1) * 100, 1, " %")

            name = s["workload"] + (f" / {s['variant']}" if s.get("variant") else "")
            t.add(
                name,
                s["load"],
                mode,
                lr.fmt(x["throughput"].median),
                lr.fmt(y["throughput"].median),
                ch("throughput"),
                lr.fmt(x["p95"].median),
                lr.fmt(y["p95"].median),
                ch("p95"),
                lr.fmt(x["error_rate"].median * 100, 2),
                lr.fmt(y["error_rate"].median * 100, 2),
            )
    print(f"A: {a} ({ra['meta']['date']}, {ra['meta']['info'].get('imageKind')}, {ra['meta']['machine']})")
    print(f"B: {b} ({rb['meta']['date']}, {rb['meta']['info'].get('imageKind')}, {rb['meta']['machine']})")
    print(t.text() if t.rows else "no (workload, load, mode) in common")
    verdicts = compare_verdicts(ra["sections"], rb["sections"])
    print("\nthe answers, load by load:\n" + verdicts.text())
    flips = [r for r in verdicts.rows if r[-1] == "FLIP"]
    print(f"{len(flips)} of {len(verdicts.rows)} answers flipped" if verdicts.rows else "no load in common")


def compare_verdicts(sections_a: list[dict], sections_b: list[dict]) -> lr.Table:
    """Whether two reports agree on each load's answer: the same winner(s), both a tie of the same
    modes, or at least one that cannot tell ('unsettled'); a different winner is a FLIP."""

    def key(s):
        return (s["workload"], s.get("variant", ""), s["load"], s.get("environment", LOCAL))

    by_key = {key(s): s for s in sections_a}
    t = lr.Table(["workload", "load", "answer A", "answer B", "agree"])
    for s in sections_b:
        other = by_key.get(key(s))
        if not other:
            continue
        wa, wb = winners(other), winners(s)
        if "-" in (wa, wb):
            continue
        t.add(s["workload"] + (f" / {s['variant']}" if s.get("variant") else ""), s["load"], wa, wb, agreement(wa, wb))
    return t


def agreement(wa: str, wb: str) -> str:
    """'yes' where two answers name the same winners or tie (however many rounds each took),
    'unsettled' where either cannot tell (or cannot order its leaders), else 'FLIP'."""
    na, nb = (re.sub(r" at \d+ rounds", "", w) for w in (wa, wb))
    if na == nb and not na.startswith("cannot tell"):
        return "yes"
    return "unsettled" if "cannot tell" in na + nb else "FLIP"


def machine() -> str:
    return (
        f"{os.cpu_count()} CPUs, {round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GiB, "
        f"{os.uname().sysname} {os.uname().release}"
    )


def finish(out: Path, args, meta: dict, sections: list[dict], appendix: Sequence[str] = (), lead: Sequence[str] = ()):
    """report.md (`lead`, then the sections, then `appendix`: markdown lines), report.html and
    results.json; with --strict, exit 1 on a failed run."""
    write_report(out, meta, sections, appendix, lead)
    htmlreport.write(out, meta, sections, Path(args.chartjs) if args.chartjs else None, answer_table(sections, LOCAL))
    (out / "results.json").write_text(
        json.dumps(
            {
                "meta": meta,
                "sections": [
                    {k: v for k, v in s.items() if k not in ("table", "server", "summary", "runners", "replicas")}
                    for s in sections
                ],
            },
            indent=1,
            default=str,
        )
    )
    print(f"report: {out / 'report.md'}")
    crossed = [
        f"{s['workload']} {s['load']} {mode} ({s['environment']})"
        for s in sections
        for mode, r in s["results"].items()
        for run in r["runs"]
        if run.get("k6_exit")
    ]
    if crossed:
        print(f"k6 thresholds crossed in: {', '.join(crossed)} (see the runs' .log files)")
    failed = [f"{s['workload']} {s['load']} {mode} ({s['environment']})" for s in sections for mode in s["failed"]]
    if failed:
        print(
            f"failed (a closed run crossed a threshold, or an open run dropped or failed below its bound): "
            f"{', '.join(failed)}"
        )
        if args.strict:
            sys.exit(1)
    elif crossed:
        print("every crossing above is an open run past its mode's bound: the overload it was made to show")
