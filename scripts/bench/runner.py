"""Runs the plan: the service under test (a local JVM; the cluster has a twin), k6 against it
with /q/metrics sampled throughout, warm-up, repeats and progress."""

from __future__ import annotations

import json
import math
import os
import re
import subprocess
import threading
import time
import urllib.request
from pathlib import Path

import labreport as lr
import proc

from .loads import MODES, Load, Suite, effective_bound, k6_mode
from .report import LOCAL, SUMMARIES, load_table, ratio_line, run_failed, server_table

ROOT = Path(__file__).resolve().parent.parent.parent



class Service:
    """The service under test as a local JVM. `./lab k8s run` has a twin for a Deployment in the
    cluster (scripts/k8s/incluster.py): the same methods, so run_suite drives either."""

    environment = LOCAL

    def __init__(self, java: str, jar: Path, port: int, env: dict, jvm_flags: list[str], log: Path):
        self.url = f"http://127.0.0.1:{port}"
        self.log = log
        full_env = dict(os.environ)
        full_env.update(env)
        full_env["QUARKUS_HTTP_PORT"] = str(port)
        cmd = [java, *jvm_flags, "-jar", str(jar)]
        self.cmd = cmd
        self.proc = subprocess.Popen(cmd, env=full_env, stdout=log.open("w"), stderr=subprocess.STDOUT)

    def wait_ready(self, timeout_s=60):
        if proc.wait_http(self.url + "/q/health/ready", timeout_s, alive=lambda: self.proc.poll() is None):
            return
        if self.proc.poll() is not None:
            raise SystemExit(f"service exited with {self.proc.returncode}; see {self.log}")
        raise SystemExit(f"service not ready after {timeout_s} s; see {self.log}")

    def get(self, path: str, timeout=10) -> str:
        with urllib.request.urlopen(self.url + path, timeout=timeout) as r:
            return r.read().decode()

    def run(self, load: "Load", mode: str, out: Path, label: str, args, warmup=False) -> dict:
        """One k6 run of `load` against this service: its figures (see figures_of)."""
        return run_k6(args.k6, load, mode, self.url, out, label, self, args, warmup)

    def stop(self):
        proc.stop(self.proc)


def local_service(suite: "Suite", mode: str, tag: str, args, out: Path) -> Service:
    """A JVM of its own for each suite and mode, with the suite's configuration."""
    return Service(args.java, Path(args.jar), args.port, suite.server_env, args.jvm_flags.split(),
                   out / f"service-{tag}-{mode}.log")


class Sampler(threading.Thread):
    """Scrapes /q/metrics every `period` s while a run goes on (one scrape before, one after)."""

    def __init__(self, service: Service, period: float):
        super().__init__(daemon=True)
        self.service, self.period = service, period
        self.samples: list[dict] = []
        self._done = threading.Event()

    def scrape(self):
        try:
            sample = lr.scrape_sample(self.service.get("/q/metrics", timeout=5))
            sample["t"] = time.time()
            self.samples.append(sample)
        except OSError:
            pass

    def run(self):
        while not self._done.wait(self.period):
            self.scrape()

    def finish(self) -> list[dict]:
        self._done.set()
        self.join()
        self.scrape()
        return self.samples


def run_k6(k6: str, load: Load, mode: str, base_url: str, out: Path, label: str, service: Service, args,
           warmup=False) -> dict:
    out.parent.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    env.update(load.env)
    if warmup:
        env.update(load.warmup_env)
    env.update({**k6_mode(mode), "BASE_URL": base_url, "SUMMARY_JSON": str(out), "RUN_LABEL": label})
    if not warmup and (args.dashboards == "all" or (args.dashboards == "auto" and load.dashboard)):
        env.update({"K6_WEB_DASHBOARD": "true", "K6_WEB_DASHBOARD_EXPORT": str(out.with_suffix(".html")),
                    "K6_WEB_DASHBOARD_PORT": "-1",
                    # k6 skips the export of a run shorter than a few periods (default 10 s).
                    "K6_WEB_DASHBOARD_PERIOD": "1s"})
    sampler = Sampler(service, args.sample_period)
    sampler.scrape()
    sampler.start()
    started = time.monotonic()
    try:
        k6_run = subprocess.run([k6, "run", "--quiet", "--no-color", str(ROOT / load.script)], env=env, cwd=ROOT,
                                capture_output=True, text=True, timeout=load.timeout_s)
    except subprocess.TimeoutExpired:
        sampler.finish()
        raise SystemExit(f"k6 run '{label}' exceeded {load.timeout_s} s and was stopped")
    samples = sampler.finish()
    took = time.monotonic() - started
    (out.with_suffix(".log")).write_text(k6_run.stdout + k6_run.stderr)
    (out.with_suffix(".metrics.jsonl")).write_text("".join(json.dumps(s) + "\n" for s in samples))
    if not out.exists():
        raise SystemExit(f"k6 run '{label}' wrote no summary (exit {k6_run.returncode}):\n{k6_run.stderr[-2000:]}")
    return figures_of(load, json.loads(out.read_text()), samples, k6_run.returncode, took)


def figures_of(load: Load, summary: dict, samples: list[dict], k6_exit: int, took: float) -> dict:
    """A run's figures: k6's summary, the server's samples, and the load's own counters and trends."""
    figures = lr.k6_figures(summary, load.scenario)
    figures.update(lr.server_figures(samples))
    metrics = summary.get("metrics", {})
    for metric, _, stat in load.extra + load.extra_report:
        figures[metric] = metrics.get(metric, {}).get("values", {}).get(stat, math.nan)
    for counter in load.counters:
        values = metrics.get(counter, {}).get("values", {})
        figures[f"{counter}_count"] = values.get("count", 0)
        figures[f"{counter}_rate"] = values.get("rate", 0.0)
    if load.served:
        # Every answer's rate stays beside it; req/s is what the bound limits: the work done.
        figures["answers_per_s"] = figures["throughput"]
        figures["throughput"] = figures[f"{load.served}_rate"]
    if "lab_records" in load.counters:
        figures["records_per_s"] = figures["lab_records_rate"]
        # The service's CPU per 1,000 records written: what a transport costs the server.
        records = figures["lab_records_count"]
        figures["cpu_ms_per_1k_records"] = figures.get("cpu_s", math.nan) * 1e6 / records if records else math.nan
    if load.open_s and lr.open_kept_up(figures["dropped"], figures["error_rate"]):
        # An open run that kept up: its throughput is the arrival rate it took, requests per second
        # of arrivals. k6's own rate also divides by the drain after the last arrival, when nothing
        # arrives (10 % of a 4 s run). An overloaded run keeps k6's rate: the service was busy
        # through the drain too.
        figures["k6_rate"] = figures["throughput"]
        figures["throughput"] = figures["requests"] / load.open_s
    figures["k6_exit"] = k6_exit
    figures["wall_s"] = took
    return figures


SERVICE_START_S = 4  # JVM start-up to ready, plus stop


def suite_modes(suite: Suite, modes: set) -> list[str]:
    return [m for m in MODES if any(m in l.modes for l in suite.loads) and (not modes or m in modes)]


def warmup_seconds(suite: Suite, args) -> float:
    return args.warmup_seconds if suite.warmup_seconds is None else min(suite.warmup_seconds, args.warmup_seconds)


def planned_seconds(suite: Suite, mode: str, args) -> dict:
    """What one mode of a suite should take: start-up and warm-up, then each load's runs."""
    first = next(l for l in suite.loads if mode in l.modes)
    least_runs = min(2, args.warmups, first.warmups or 2)
    per_mode = lambda v: v.get(mode, 0.0) if isinstance(v, dict) else v
    warm = max(warmup_seconds(suite, args), per_mode(first.warmup_est_s or first.est_s) * least_runs)
    runs = {id(l): (args.repeats if l.repeats is None else min(l.repeats, args.repeats)) * per_mode(l.est_s)
            for l in suite.loads if mode in l.modes}
    return {"start": SERVICE_START_S + warm, "runs": runs}


def tick(progress: dict, seconds: float) -> str:
    """Books `seconds` of the plan as done; returns the elapsed time and the estimate of what is left."""
    progress["planned_done"] += seconds
    elapsed = time.monotonic() - progress["started"]
    left = lr.eta_seconds(progress["planned_total"], progress["planned_done"], elapsed)
    return f"{lr.fmt_duration(elapsed)} elapsed, about {lr.fmt_duration(left)} left"


def run_suite(suite: Suite, args, out: Path, modes: set, progress: dict, start=local_service, prefix: str = ""):
    """Each mode gets a service of its own (a JVM, or a fresh pod in the cluster), so threads, RSS
    and GC of one mode never show in the other's figures: start, warm up (the suite's first load),
    run every load, stop. `prefix` names the environment in the run files (in-cluster variants)."""
    results = [dict() for _ in suite.loads]
    pools, info = {}, {}
    tag = prefix + suite.workload + (f"-{suite.variant}" if suite.variant else "")
    tag = tag.replace(" ", "_").replace(",", "")
    for mode in suite_modes(suite, modes):
        plan = planned_seconds(suite, mode, args)
        service = start(suite, mode, tag, args, out)
        try:
            service.wait_ready()
            info = json.loads(service.get("/api/info"))
            pools = info.get("pools", {})
            print(f"   {mode}: service ready ({info.get('jdk')}, {info.get('imageKind')})", flush=True)
            warmed = False
            for i, load in enumerate(suite.loads):
                if mode not in load.modes:
                    continue
                slug = f"{tag}-{re.sub(r'[^A-Za-z0-9.]+', '_', load.name.split(' (')[0]).strip('_')}"
                warm = {}
                if not warmed:
                    # Warm-up, not counted: the JIT compiles this mode's request path. Later loads of
                    # the suite run on the warm JVM.
                    warmups = args.warmups if load.warmups is None else min(load.warmups, args.warmups)
                    least = warmup_seconds(suite, args)
                    previous = math.nan
                    warm_started = time.monotonic()
                    for w in range(warmups):
                        label = f"warm-up {w + 1}/{warmups} {suite.workload} {mode}"
                        print(f"   {label} ...", end="", flush=True)
                        warm = service.run(load, mode, out / "warmup" / f"{slug}-{mode}-{w + 1}.json", label,
                                           args, warmup=True)
                        print(f" {lr.fmt(warm['throughput'])} req/s", flush=True)
                        # Warm once two runs in a row agree and the JIT had --warmup-seconds of load:
                        # short runs agree with each other long before the JIT is done.
                        if (w + 1 >= 2 and lr.settled(previous, warm["throughput"], args.warmup_tolerance)
                                and time.monotonic() - warm_started >= least):
                            break
                        previous = warm["throughput"]
                    warmed = True
                    print(f"   warm: {tick(progress, plan['start'])}", flush=True)
                repeats = args.repeats if load.repeats is None else min(load.repeats, args.repeats)
                results[i][mode] = {"runs": [], "warmup": warm}
                for r in range(repeats):
                    label = f"run {r + 1}/{repeats} {suite.workload} {mode} {load.name}"
                    print(f"   [{progress['done'] + i + 1}/{progress['total']}] {label} ...", end="", flush=True)
                    run_json = out / "runs" / f"{slug}-{mode}-{r + 1}.json"
                    fig = service.run(load, mode, run_json, label, args)
                    eta = tick(progress, plan["runs"][id(load)] / repeats)
                    results[i][mode]["runs"].append(fig)
                    if r == 0:
                        results[i][mode]["first_run"] = str(run_json.relative_to(out))
                    print(f" {lr.fmt(fig['throughput'])} req/s, mean {lr.fmt(fig['mean'])} ms, "
                          f"errors {lr.fmt(fig['error_rate'] * 100, 2)} %, dropped {lr.fmt(fig['dropped'], 0)} "
                          f"({eta})", flush=True)
        finally:
            service.stop()
    progress["done"] += len(suite.loads)
    return results, pools, info


def measure(chosen: list[Suite], args, out: Path, modes: set, progress: dict, start=local_service,
            environment: str = Service.environment, prefix: str = "") -> tuple[list[dict], dict]:
    """Runs the suites (run_suite) and turns each load's results into a report section."""
    sections, info = [], {}
    for suite in chosen:
        scaled = " (smoke: scaled down to seconds)" if args.profile == "smoke" else ""
        if not suite.description.endswith(scaled):
            suite.description += scaled
        where = f" [{environment}]" if environment != Service.environment else ""
        print(f"\n== {suite.workload}{' / ' + suite.variant if suite.variant else ''}{where}: {suite.description}",
              flush=True)
        results, pools, info = run_suite(suite, args, out, modes, progress, start, prefix)
        for i, load in enumerate(suite.loads):
            load.modes = tuple(m for m in load.modes if m in results[i])
            section = {"workload": suite.workload, "variant": suite.variant, "load": load.name,
                       "environment": environment,
                       "description": suite.description, "script": load.script, "env": load.env,
                       "server_env": suite.server_env, "pools": pools,
                       "table": load_table(load, results[i], pools),
                       "server": server_table(load, results[i], info.get("imageKind") == "native"),
                       "ratio": ratio_line(load, results[i]), "results": results[i],
                       "expected": load.expect(pools) if load.expect else {},
                       "bounds": {m: effective_bound(load, m, pools) for m in load.modes}, "rate": load.rate,
                       "failed": [m for m in load.modes for run in results[i][m]["runs"]
                                  if run_failed(load, m, pools, run)]}
            sections.append(section)
            print(f"\n{suite.workload}: {load.name}{where}\n{section['table'].text()}")
            if section["ratio"]:
                print(section["ratio"])
            print(f"server side:\n{section['server'].text()}\n", flush=True)
        if suite.summary:
            table = SUMMARIES[suite.summary](sections)
            sections[-1]["summary"] = table
            print(f"{suite.workload} summary:\n{table.text()}\n", flush=True)
    return sections, info
