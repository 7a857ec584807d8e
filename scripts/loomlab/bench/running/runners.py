"""One load split over N k6 runners with k6's own execution segments: every runner starts paused
(`--paused`, k6's REST API on its address), all are resumed together once every one answers,
each writes its summary and its raw samples (k6's CSV output, gzipped), and merge.py rebuilds the
summary of the whole run from the samples. Locally the runners are processes beside each other;
`./lab k8s run --runners N` runs the same split as the pods of an Indexed Job.
"""

from __future__ import annotations

import functools
import json
import subprocess
import threading
import time
import urllib.request
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path

from loomlab import LabError, proc
from loomlab import labreport as lr

from ..measuring import merge
from ..planning.loads import Load, on_cpus
from .engines import THRESHOLDS_CROSSED

FIRST_PORT = 6600  # the local runners' REST API: 127.0.0.1:6600, 6601, ...


def segments(n: int) -> tuple[list[str], str]:
    """The execution segments of N equal runners and their sequence, as k6's flags take them."""
    cuts = [Fraction(i, n) for i in range(n + 1)]
    text = [str(c) for c in cuts]
    return [f"{text[i]}:{text[i + 1]}" for i in range(n)], ",".join(text)


def segment_flags(i: int, n: int) -> list[str]:
    if n == 1:
        return []
    parts, sequence = segments(n)
    return ["--execution-segment", parts[i], "--execution-segment-sequence", sequence]


def wanted(load: Load) -> set[str]:
    """The metrics a run's figures read (runner.figures_of): only these are merged."""
    names = set(lr.STREAM_METRICS) | set(lr.STREAM_METRICS.values())
    names |= {"loomlab_req_duration_sq", "dropped_iterations"}
    names |= {metric for metric, _, _ in load.extra + load.extra_report}
    return names | set(load.counters)


# What `k6 resume` sends: the runner's status, not paused (PATCH /v1/status of k6's REST API).
RESUME = {"data": {"type": "status", "id": "default", "attributes": {"paused": False}}}


def resume(address: str, timeout: float = 10):
    """Resumes the local runner at `address`."""
    request = urllib.request.Request(
        f"http://{address}/v1/status",
        data=json.dumps(RESUME).encode(),
        method="PATCH",
        headers={"Content-Type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=timeout) as r:
        r.read()


def exited(p: subprocess.Popen) -> Callable[[], bool]:
    """A check that the process has exited (a runner that died before it was ready)."""
    return lambda: p.poll() is not None


def paused(address: str) -> bool:
    """True once the runner's REST API answers and says it is paused (initialised, not started)."""
    try:
        with urllib.request.urlopen(f"http://{address}/v1/status", timeout=2) as r:
            return bool(json.loads(r.read())["data"]["attributes"]["paused"])
    except (OSError, ValueError, KeyError):
        return False


def resume_all(resume_one, targets: list) -> float:
    """Resumes every target at once (a thread each); returns the spread of the resume calls' returns."""
    done, errors = [0.0] * len(targets), []

    def go(i, target):
        try:
            resume_one(target)
            done[i] = time.time()
        except Exception as e:  # noqa: BLE001 - reported below, the run fails
            errors.append(f"{target}: {e}")

    threads = [threading.Thread(target=go, args=(i, t)) for i, t in enumerate(targets)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise LabError(f"could not resume every k6 runner: {'; '.join(errors)}")
    return max(done) - min(done)


def merged_run(load: Load, out: Path, label: str, exits: list[int], logs: list[str]) -> tuple[dict, int]:
    """The runners' summaries and samples merged into one summary and k6's exit code for it; a
    runner that failed for another reason than a threshold fails the run, with its log's tail."""
    n = len(exits)
    for i, code in enumerate(exits):
        if code not in (0, THRESHOLDS_CROSSED):
            raise LabError(
                f"k6 runner {i} of {n} for '{label}' failed (exit {code}); no partial merge is "
                f"reported. Its log:\n{logs[i][-2000:]}"
            )
    summaries = []
    for i in range(n):
        path = runner_file(out, i, "json")
        if not path.exists():
            raise LabError(f"k6 runner {i} of {n} for '{label}' wrote no summary:\n{logs[i][-2000:]}")
        summaries.append(json.loads(path.read_text()))
    try:
        summary = merge.merge([runner_file(out, i, "csv.gz") for i in range(n)], summaries, wanted(load))
    except merge.MergeError as e:
        raise LabError(f"'{label}': {e}") from e
    summary["runner_figures"] = [lr.k6_figures(s, load.scenario) for s in summaries]
    return summary, THRESHOLDS_CROSSED if merge.crossed(summary) else 0


def runner_file(out: Path, i: int, suffix: str) -> Path:
    return out.with_name(f"{out.stem}.runner-{i}.{suffix}")


def run_local(
    k6: str, load: Load, script: Path, env: dict, n: int, out: Path, label: str, cwd: Path
) -> tuple[dict, int]:
    """N local k6 processes, started paused and resumed together; the merged summary and exit code."""
    procs, logs = [], []
    for i in range(n):
        runner_env = dict(env, SUMMARY_JSON=str(runner_file(out, i, "json")), K6_CSV_TIME_FORMAT=merge.TIME_FORMAT)
        runner_env.pop("K6_WEB_DASHBOARD", None)  # a dashboard is one process's view
        logs.append(runner_file(out, i, "log").open("w"))
        cmd = [
            k6,
            "run",
            "--quiet",
            "--no-color",
            "--paused",
            "--address",
            f"127.0.0.1:{FIRST_PORT + i}",
            *segment_flags(i, n),
            "--out",
            f"csv={runner_file(out, i, 'csv.gz')}",
            str(script),
        ]
        cmd = on_cpus(cmd, load.k6_cpus)
        procs.append(subprocess.Popen(cmd, env=runner_env, cwd=cwd, stdout=logs[-1], stderr=subprocess.STDOUT))
    try:
        for i, p in enumerate(procs):
            if not proc.wait_until(
                functools.partial(paused, f"127.0.0.1:{FIRST_PORT + i}"), 60, 0.1, give_up=exited(p)
            ):
                raise LabError(
                    f"k6 runner {i} of {n} for '{label}' never became ready (paused, REST API up): "
                    f"{runner_file(out, i, 'log')}"
                )
        resume_all(resume, [f"127.0.0.1:{FIRST_PORT + i}" for i in range(n)])
        deadline = time.monotonic() + load.timeout_s
        for p in procs:
            p.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        raise LabError(f"k6 runners of '{label}' exceeded {load.timeout_s} s and were stopped") from None
    finally:
        for p, log in zip(procs, logs, strict=False):
            proc.stop(p)
            log.close()
    texts = [runner_file(out, i, "log").read_text() for i in range(n)]
    return merged_run(load, out, label, [p.returncode for p in procs], texts)
