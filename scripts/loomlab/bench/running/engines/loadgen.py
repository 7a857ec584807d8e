"""loadgen as an engine (scripts/loadgen: a driver over vegeta's library): the load's environment
read as k6's scripts read it (MODEL, VUS, ITERATIONS, DURATION, STAGES, RATE, MAX_VUS, MAX_DROPPED,
MAX_ERRORS; and ARRIVALS, BURST_MS, CONNECTIONS, which only loadgen paces: loads.arriving),
its Request's paths as the targets, the driver's JSON summary as the run's figures, and the thresholds k6's scripts hold
(scenarioThresholds in k6/lib/lab.js) checked here on them."""

from __future__ import annotations

import atexit
import csv
import hashlib
import io
import json
import math
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from loomlab import LabError

from ...measuring.figures import TREND_STATS
from ...planning.arrivals import Bodies, Request
from ...planning.lane import Lane
from ...planning.loads import PACED, UNIFORM, Load, on_cpus
from ...planning.settings import RunSettings
from . import THRESHOLDS_CROSSED, Generated

# k6/lib/lab.js: http_req_failed rate < 0.01 unless a script tolerates more (MAX_ERRORS).
MAX_ERROR_RATE = 0.01


def requests_of(samples_csv: str) -> list[tuple[float, float, int]]:
    """(sent at in Unix seconds, latency ms, status) of every request of a run's -samples (Loadgen's
    `samples`: <out>.samples.csv)."""
    rows = csv.DictReader(io.StringIO(samples_csv))
    return [(int(r["timestamp_us"]) / 1e6, int(r["latency_us"]) / 1e3, int(r["status"])) for r in rows]


def run_env(load: Load, lane: Lane, warmup: bool) -> dict:
    """The environment that shapes a run, as k6 would see it: the load's, a warm-up's overrides, the
    column's MODE (and CLIENTS or OFFLOAD)."""
    return {**load.env, **(load.warmup_env if warmup else {}), **lane.k6_env()}


def shape_flags(env: dict, request: Request) -> list[str]:
    """loadgen's flags for the shape k6's byModel, closedIterations, steadyUsers and closedStages read
    from `env` (an open run's duration is OPEN_DURATION where DURATION is a ramp's, k6/product.js); a
    stream of bodies is one user sending each once (k6/lib/ingest.js: closedIterations(1, CHUNKS))."""
    if request.bodies is not None:
        return ["-model", "closed", "-users", "1", "-iterations", str(request.bodies.count)]
    if env.get("MODEL", "closed") == "open":
        duration = env.get("OPEN_DURATION", env.get("DURATION"))
        flags = ["-model", "open", "-rate", env["RATE"], "-duration", duration, "-max-workers", env["MAX_VUS"]]
        arrivals = env.get("ARRIVALS", UNIFORM)
        if arrivals == PACED:
            return [*flags, "-arrivals", PACED, "-connections", env["CONNECTIONS"]]
        if arrivals != UNIFORM:
            return [*flags, "-arrivals", arrivals, "-burst-period", f"{env['BURST_MS']}ms"]
        return flags
    if env.get("MODEL", "closed") != "closed":
        raise LabError(f"MODEL must be closed or open, got {env['MODEL']!r}")
    if "STAGES" in env:
        return ["-model", "closed", "-stages", env["STAGES"]]
    flags = ["-model", "closed", "-users", env["VUS"]]
    if "ITERATIONS" in env:
        return [*flags, "-iterations", env["ITERATIONS"]]
    return [*flags, "-duration", env["DURATION"]]


def crossed(env: dict, request: Request, s: dict) -> list[str]:
    """The thresholds a run crossed, as k6's scripts state them, on loadgen's summary `s`."""
    most_errors = request.max_errors if request.max_errors is not None else float(env.get("MAX_ERRORS", MAX_ERROR_RATE))
    floor_ms, answered = request.floor_ms, s["requests"] > 0
    limits = [
        (answered, "no request was answered"),
        (s["error_rate"] < most_errors, f"error rate {s['error_rate']:.4f}"),
        (s["checks_failed"] == 0, f"{s['checks_failed']} answers failed their check"),
        (s["overflow"] == 0, f"{s['overflow']} answers past the samples a run keeps (stopped at its bound)"),
        (not answered or s["latency_ms"]["min"] >= floor_ms, f"an answer sooner than {floor_ms:g} ms"),
        *((not answered or s["latency_ms"][f] < most, f"{f} {most:g} ms or more") for f, most in request.limits),
    ]
    if env.get("MODEL") == "open":
        limits.append((s["dropped"] <= int(env.get("MAX_DROPPED", 0)), f"{s['dropped']} arrivals dropped"))
    return [what for ok, what in limits if not ok]


# k6's trend statistics (summaryTrendStats) by the name loadgen's summary gives them.
STATS = {"avg": "mean", **TREND_STATS}


def trends(load: Load, request: Request, s: dict) -> dict:
    """The load's custom trends (Load.extra, extra_report) from the answers' fields and subsets; a
    trend no answer gave is NaN, as k6 leaves it out."""
    sources = {m: ("fields", f) for m, f in request.fields} | {m: ("latency_of", t) for m, t in request.latency_of}
    out = {}
    for metric, _, stat in load.extra + load.extra_report:
        if metric not in sources:
            raise LabError(f"loadgen: the request gives no source for the load's trend {metric}")
        kind, key = sources[metric]
        got = s.get(kind, {}).get(key, {})
        out[metric] = got[STATS[stat]] if got.get("count") else math.nan
    return out


def figures(s: dict) -> dict:
    """The driver's summary under k6_figures' keys (the rate over the run from the first
    request sent to the last answer; no setup: the bench waits for readiness before a run)."""
    lat = s["latency_ms"]
    nan = float("nan")
    return {
        "requests": s["requests"],
        "throughput": s["requests"] / s["duration_s"] if s["duration_s"] > 0 else 0.0,
        "setup_s": 0.0,
        "setup_probes": 0,
        **{key: lat.get(key, nan) for key in ("mean", "sd", *TREND_STATS.values())},
        "error_rate": s["error_rate"],
        "dropped": s["dropped"],
        "duration_s": s["duration_s"],
        "connections": s.get("connections", nan),
    }


def counted(counters: tuple, request: Request, s: dict) -> dict:
    """The load's counters (k6's `<name>_count` and `_rate` figures): the answers of a status, or the
    sum of an answer's field."""
    counts = dict(request.counts)
    missing = [c for c in counters if c not in counts]
    if missing:
        raise LabError(f"loadgen: the request counts nothing for the load's counters {missing}")
    out = {}
    for name in counters:
        what = counts[name]
        if isinstance(what, str):
            count = s.get("fields", {}).get(what, {}).get("sum", 0)
        else:
            count = s["status_codes"].get(str(what), 0)
        out[f"{name}_count"] = count
        out[f"{name}_rate"] = count / s["duration_s"] if s["duration_s"] > 0 else 0.0
    return out


def answer_flags(request: Request) -> list[str]:
    """The flags that read the answers: checks, fields (the trends' and the counters'), subsets."""
    paths = dict.fromkeys([f for _, f in request.fields] + [c for _, c in request.counts if isinstance(c, str)])
    return [
        *(flag for text in request.expect for flag in ("-expect", text)),
        *(flag for path in paths for flag in ("-field", path)),
        *(flag for _, text in request.latency_of for flag in ("-latency-of", text)),
    ]


def stream_flags(base_url: str, request: Request) -> list[str]:
    """A gRPC stream's flags: its method and .proto, the service's address (the HTTP port serves
    gRPC too), its window and metadata."""
    s = request.stream
    if s is None:
        return []
    address = base_url.split("://", 1)[-1].rstrip("/")
    flags = ["-grpc", s.method, "-proto", s.proto, "-address", address, "-window", str(s.window)]
    return flags + [flag for k, v in s.metadata for flag in ("-metadata", f"{k}={v}")]


def targets_text(base_url: str, request: Request) -> str:
    """vegeta's JSON targets, one a line: GETs, or POSTs whose bodies loadgen reads from -bodies."""
    method = "GET" if request.bodies is None else "POST"
    header = {} if request.bodies is None else {"header": {"Content-Type": [request.bodies.content_type]}}
    return "".join(json.dumps({"method": method, "url": base_url + p, **header}) + "\n" for p in request.paths)


@dataclass
class BodyFiles:
    """The files of the streams' bodies, written before a run's clock starts and shared by the runs of
    the same stream; one kept at a time (a seed-size stream is ~280 MB), all removed at exit."""

    held: dict[str, Path] = field(default_factory=dict)
    _dir: Path | None = None

    def path(self, bodies: Bodies) -> Path:
        digest = hashlib.sha256(bodies.key.encode()).hexdigest()[:16]
        if digest in self.held:
            return self.held[digest]
        if self._dir is None:
            self._dir = Path(tempfile.mkdtemp(prefix="loom-lab-bodies-"))
            atexit.register(shutil.rmtree, self._dir, True)
        for old in self.held.values():
            old.unlink(missing_ok=True)
        self.held.clear()
        path = self._dir / f"{digest}.jsonl"
        written = 0
        with path.open("w") as f:
            for line in bodies.lines():
                f.write(line + "\n")
                written += 1
        if written != bodies.count:
            raise LabError(f"{bodies.key}: {written} bodies made, {bodies.count} planned")
        self.held[digest] = path
        return path


@dataclass(frozen=True)
class Loadgen:
    """`path`: the driver's binary. `results`: each run also keeps vegeta's own results beside its
    summary (<out>.results.bin), which `merge` reads back with those of other runners. `samples`:
    every request as a CSV row beside it (<out>.samples.csv: sent at, latency, status, error)."""

    path: str
    name: str = "loadgen"
    bodies: BodyFiles = field(default_factory=BodyFiles)
    results: bool = False
    samples: bool = False

    def version(self) -> str:
        return "loadgen (scripts/loadgen) on vegeta v12.13.0"

    def prepare(self, load: Load, lane: Lane, warmup: bool) -> None:
        """A stream's bodies written before the run's clock starts (once for every column)."""
        if load.request is not None:
            request = load.request(run_env(load, lane, warmup))
            if request.bodies is not None:
                self.bodies.path(request.bodies)

    def generate(
        self, load: Load, lane: Lane, base_url: str, out: Path, label: str, settings: RunSettings, warmup: bool
    ) -> Generated:
        if load.request is None:
            raise LabError(f"{load.script}: loadgen cannot send this load (it declares no request)")
        env = run_env(load, lane, warmup)
        request = load.request(env)
        if request.stream is None:
            targets = out.with_suffix(".targets.jsonl")
            targets.write_text(targets_text(base_url, request))
            cmd = [self.path, "-targets", str(targets)]
        else:
            cmd = [self.path, *stream_flags(base_url, request)]
        cmd += [*shape_flags(env, request), "-summary", str(out)]
        cmd += answer_flags(request)
        if env.get("NEW_CONNECTIONS") == "true":  # as many distinct clients: k6's K6_NO_VU_CONNECTION_REUSE
            cmd.append("-new-connections")
        if request.bodies is not None:
            cmd += ["-bodies", str(self.bodies.path(request.bodies))]
        if self.results:
            cmd += ["-results", str(results_file(out))]
        if self.samples:
            cmd += ["-samples", str(out.with_suffix(".samples.csv"))]
        return self._run(load, env, request, cmd, out, label)

    def merge(self, load: Load, lane: Lane, warmup: bool, parts: list[Path], out: Path, label: str) -> Generated:
        """The runners' results (each sent its share of the load) read as one run of the whole load:
        exact merged percentiles, the same checks, fields and thresholds."""
        env = run_env(load, lane, warmup)
        request = load.request(env) if load.request is not None else None
        if request is None:
            raise LabError(f"{load.script}: loadgen cannot merge this load (it declares no request)")
        cmd = [self.path, *(flag for p in parts for flag in ("-merge", str(p)))]
        cmd += [*shape_flags(env, request), "-summary", str(out), *answer_flags(request)]
        return self._run(load, env, request, cmd, out, label)

    def _run(self, load: Load, env: dict, request: Request, cmd: list[str], out: Path, label: str) -> Generated:
        """The driver run to its end, its summary read as the run's figures and thresholds."""
        try:
            run = subprocess.run(
                on_cpus(cmd, load.k6_cpus), capture_output=True, text=True, timeout=load.timeout_s, check=False
            )
        except subprocess.TimeoutExpired as e:
            raise LabError(f"loadgen run '{label}' exceeded {load.timeout_s} s and was stopped") from e
        if run.returncode != 0 or not out.exists():
            raise LabError(f"loadgen run '{label}' failed (exit {run.returncode}):\n{run.stderr[-2000:]}")
        summary = json.loads(out.read_text())
        failed = crossed(env, request, summary)
        out.with_suffix(".log").write_text(
            run.stdout + run.stderr + "".join(f"threshold crossed: {f}\n" for f in failed)
        )
        generated = figures(summary) | counted(load.counters, request, summary) | trends(load, request, summary)
        return Generated(generated, THRESHOLDS_CROSSED if failed else 0)


def results_file(out: Path) -> Path:
    """Where a run that keeps its results writes them (vegeta's gob), beside its summary `out`."""
    return out.with_suffix(".results.bin")
