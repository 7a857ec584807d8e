"""A run's Job: the workload's Job of deploy/k8s/jobs made for one run on the lab's engine (the
loadgen image running bench.jobrun), and its log read back as the run's figures. The lab runs no k6
in a cluster: deploy/k8s/jobs' k6 Jobs are for a team that brings its own k6 image."""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
import math
import re
import subprocess
import time
from datetime import datetime
from pathlib import Path

from loomlab import ROOT, LabError
from loomlab.bench import api as bench
from loomlab.incluster.core import pods
from loomlab.labcluster import LOADGEN_IMAGE


def job_templates(job_docs: list[dict], images: dict[str, str]) -> dict:
    """script -> the workload's Job of deploy/k8s/jobs on the lab's engine (on_loadgen), its image the
    pushed one (not the indexed one's split nor its resume Job: `distribute` makes a split of any
    workload's Job)."""
    image = images.get(LOADGEN_IMAGE, LOADGEN_IMAGE)
    templates = {}
    for d in job_docs:
        if d["kind"] == "Job" and not d["spec"].get("completionMode") == "Indexed":
            env = {e["name"]: e.get("value") for e in d["spec"]["template"]["spec"]["containers"][0].get("env", [])}
            if "SCRIPT" in env:
                d = copy.deepcopy(d)
                d["spec"].pop("suspend", None)  # deploy/k8s/jobs holds them suspended; a run's Job starts
                templates[env["SCRIPT"]] = on_loadgen(d, image)
    return templates


# The loadgen Job's scratch space: a stream's bodies are written there before its clock starts (a
# seed-size stream of chunks is ~280 MB).
LOADGEN_TMP = "1Gi"


def on_loadgen(job: dict, image: str) -> dict:
    """The workload's Job with the lab's engine in place of k6: the loadgen image running one run
    (python3 -m loomlab.bench.jobrun: the bench's load, its figures printed to the log), labelled
    for its own NetworkPolicy (loadgen-to-service-only), its results volume kept (a split's runners
    write their results there) and no scripts."""
    job = copy.deepcopy(job)
    pod = job["spec"]["template"]
    for meta in (job["metadata"], pod.setdefault("metadata", {})):
        meta.setdefault("labels", {})["app.kubernetes.io/name"] = "loadgen"
    container = pod["spec"]["containers"][0]
    container.update(name="loadgen", image=image, command=["python3", "-m", "loomlab.bench.jobrun"], env=[])
    container["volumeMounts"] = [m for m in container.get("volumeMounts", []) if m["name"] in ("results", "tmp")]
    volumes = [v for v in pod["spec"].get("volumes", []) if v["name"] == "results"]
    pod["spec"]["volumes"] = volumes + [{"name": "tmp", "emptyDir": {"sizeLimit": LOADGEN_TMP}}]
    pods.bound_disk(pod["spec"])
    return job


def job_id(stem: str) -> str:
    """A Job name from a run file's name: DNS-1123, at most 63 characters, unique per run."""
    name = re.sub(r"[^a-z0-9-]+", "-", ("k6-" + stem).lower()).strip("-")
    return name[:50].rstrip("-") + "-" + format(time.time_ns() % 36**6, "x")[-6:]


def make_job(templates: dict, load: bench.Load, name: str, target: str, mode: str, label: str, warmup: bool) -> dict:
    """The workload's Job for one run: one target, one mode, the load's parameters (jobrun reads the
    rest from the bench), its figures printed to the log."""
    script = Path(load.script).name
    if load.request is None:
        raise LabError(f"{load.script}: loadgen cannot send this load in a cluster (it declares no request)")
    job = copy.deepcopy(templates[script])
    job["metadata"]["name"] = name
    job["metadata"].setdefault("labels", {})["loom-lab.dev/run"] = "warm-up" if warmup else "measured"
    job["spec"]["activeDeadlineSeconds"] = load.timeout_s + 60
    container = job["spec"]["template"]["spec"]["containers"][0]
    env = {"SCRIPT": script, "LOAD": load.name, "TARGETS": target, "LANE": mode, "RUN_LABEL": label}
    env |= {"WARMUP": "1" if warmup else "0", "RESULTS": "/tmp/run", **load.env}
    container["env"] = [{"name": k, "value": str(v)} for k, v in env.items()]
    return job


def set_env(container: dict, **values: str) -> None:
    """The container's environment with `values` set: each replaces its name's entry, or is added (a
    name twice in a container's env is refused by server-side apply)."""
    env = {e["name"]: e for e in container.get("env", [])}
    env |= {k: {"name": k, "value": v} for k, v in values.items()}
    container["env"] = list(env.values())


def read_loadgen(load: bench.Load, out: Path, log: str, samples: list, took: float, job_name: str, label: str) -> dict:
    """A loadgen Job's run (bench.jobrun) as the local bench has it: the same figures, the
    generator's own CPU (its pod's), its summary beside `out`."""
    run = bench.loadgen_run(log)
    if run is None:
        raise LabError(f"loadgen Job {job_name} ({label}) printed no run; its log:\n{log[-2000:]}")
    out.write_text(json.dumps(run["summary"]))
    out.with_suffix(".log").write_text(log.split(bench.LOADGEN_RUN, 1)[0])
    figures = bench.figures_from(load, run["figures"], samples, run["exit"], took)
    return figures | {"gen_cpu_s": run["gen_cpu_s"], "engine": run["engine"]}


# A runner's exits that leave it figures (bench.figures_from says whether its thresholds held).
OK_EXITS = (0, bench.THRESHOLDS_CROSSED)


def split_loadgen(
    load: bench.Load,
    mode: bench.Lane,
    warmup: bool,
    out: Path,
    label: str,
    files: Path,
    logs: list[str],
    exits: list[int],
    samples: list,
    took: float,
) -> dict:
    """loadgen's runners of a split: each printed its share's run and kept its results on the
    volume (part<i>.results.bin, in `files`); the driver's own loadgen reads them as one run of the
    whole load (-merge: exact percentiles, the load's checks and thresholds); each runner's figures
    and the spread of their first requests beside it. A runner that failed fails the run."""
    runs = []
    for i, (log, code) in enumerate(zip(logs, exits, strict=True)):
        out.with_name(f"{out.stem}.runner-{i}.log").write_text(log)
        run = bench.loadgen_run(log)
        if run is None or code not in OK_EXITS:
            raise LabError(
                f"loadgen runner {i} of {len(logs)} for '{label}' failed (exit {code}); no partial merge is"
                f" reported. Its log:\n{log[-2000:]}"
            )
        runs.append(run)
    parts = [files / f"part{i}.results.bin" for i in range(len(logs))]
    if missing := [p.name for p in parts if not p.exists()]:
        raise LabError(f"'{label}': the runners' results {', '.join(missing)} are not on the volume")
    generated = bench.Loadgen(local_loadgen()).merge(load, mode, warmup, parts, out, label)
    starts = [first_request_s(r["summary"]) for r in runs]
    merged = generated.figures | {
        "runner_figures": [r["figures"] for r in runs],
        "start_skew_s": max(starts) - min(starts),
    }
    figures = bench.figures_from(load, merged, samples, generated.exit, took)
    return figures | {"gen_cpu_s": sum(r["gen_cpu_s"] for r in runs), "engine": "loadgen"}


@functools.cache
def local_loadgen() -> str:
    """This machine's loadgen (scripts/gotool.sh builds it once), which merges the runners' results."""
    built = subprocess.run(["bash", str(ROOT / "scripts/gotool.sh"), "loadgen"], capture_output=True, text=True)
    if built.returncode != 0:
        raise LabError(f"the runners' results are merged by loadgen, which did not build here:\n{built.stderr}")
    return built.stdout.strip()


def rfc3339_s(stamp: str) -> float:
    """An RFC 3339 time with up to nanoseconds (vegeta's, a pod log's), in seconds since the epoch."""
    m = re.fullmatch(r"(.+?)(\.\d+)?(Z|[+-]\d\d:\d\d)", stamp)
    if not m:
        raise LabError(f"{stamp!r} is not RFC 3339")
    zone = "+00:00" if m[3] == "Z" else m[3]
    return datetime.fromisoformat(m[1] + zone).timestamp() + float("0" + (m[2] or ""))


def first_request_s(summary: dict) -> float:
    """When a run sent its first request (vegeta's `earliest`), in seconds since the epoch."""
    return rfc3339_s(summary["vegeta"]["earliest"])


# Quarkus' start-up line, as the pod log gives it with timestamps=true (RFC 3339, nanoseconds, UTC).
STARTED_IN = re.compile(r"^(\S+) .*started in (\d+\.\d+)s", re.M)
# The first answer a start in the cluster waits for, through the Service.
FIRST = bench.sleep.FIRST_ANSWER


def started_line(log: str, created_at: float) -> dict[str, float]:
    """From a pod's log with timestamps: Quarkus' own start-up figure (JVM start to the application's
    start, `quarkus_started_s`) and when its line was written, from the pod first seen at `created_at`
    (Unix time; `up_s`). NaN each where the line is missing."""
    m = STARTED_IN.search(log)
    if not m:
        return {"quarkus_started_s": math.nan, "up_s": math.nan}
    return {"quarkus_started_s": float(m.group(2)), "up_s": rfc3339_s(m.group(1)) - created_at}


def carried(load: bench.Load, suite: bench.Suite) -> bench.Load:
    """`load` (an experiment's own rate or length) under the name of the suite's load of the same
    script and model, whose parameters it carries: a Job finds its load by that name
    (jobrun.load_of) and takes the parameters it is given."""
    model = load.env.get("MODEL", "closed")
    for ld in suite.loads:
        same = ld.script == load.script and ld.env.get("MODEL", "closed") == model
        if same and ld.request is not None and set(load.env) <= set(ld.env):
            return dataclasses.replace(load, name=ld.name, request=ld.request)
    raise LabError(f"{load.name}: the {suite.workload} suite has no load of {load.script} with its parameters")
