"""The cluster side of a run: manifests rendered with kustomize and applied, rollouts awaited, the
workload's k6 Job of deploy/k8s/jobs made for one run, started, awaited and read back."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import time
import urllib.parse
from pathlib import Path

import cluster
import proc
from bench import loads

NS = "loom-lab"
SUMMARY_BEGIN = "----- loom-lab k6 summary -----"
SUMMARY_END = "----- end of loom-lab k6 summary -----"


def render(directory: str) -> list[dict]:
    p = subprocess.run(["kubectl", "kustomize", str(cluster.ROOT / directory)], capture_output=True, text=True,
                       check=True)
    import yaml  # noqa: PLC0415 - from the verify venv, like every Kubernetes script here

    return [d for d in yaml.safe_load_all(p.stdout) if d]


def apply(docs: list[dict]):
    cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))


def delete_job(name: str):
    cluster.kubectl("-n", NS, "delete", "job", name, "--wait=false", "--cascade=background", check=False)


def wait_rollouts(names: list[str], timeout_s: int = 300):
    for kind_name in names:
        cluster.kubectl("-n", NS, "rollout", "status", kind_name, f"--timeout={timeout_s}s", timeout=timeout_s + 10)


def job_templates(job_docs: list[dict]) -> dict:
    """script -> the workload's Job of deploy/k8s/jobs (the indexed one splits a run: not a template)."""
    templates = {}
    for d in job_docs:
        if d["kind"] == "Job" and not d["spec"].get("completionMode") == "Indexed":
            env = {e["name"]: e.get("value") for e in d["spec"]["template"]["spec"]["containers"][0].get("env", [])}
            templates[env["SCRIPT"]] = d
    return templates


def summary_of(log: str) -> str:
    """k6's raw summary from a Job's log: the one JSON line between the markers. The log holds k6's
    stdout and stderr together, so its stderr lines (a crossed threshold) can land between them."""
    if SUMMARY_BEGIN not in log:
        return ""
    block = log.split(SUMMARY_BEGIN, 1)[1].split(SUMMARY_END, 1)[0]
    return next((line for line in block.splitlines() if line.startswith("{")), "")


def job_id(stem: str) -> str:
    """A Job name from a run file's name: DNS-1123, at most 63 characters, unique per run."""
    name = re.sub(r"[^a-z0-9-]+", "-", ("k6-" + stem).lower()).strip("-")
    return name[:50].rstrip("-") + "-" + format(time.time_ns() % 36 ** 6, "x")[-6:]


def make_job(templates: dict, load: loads.Load, name: str, target: str, mode: str, label: str, warmup: bool) -> dict:
    """The workload's Job of deploy/k8s/jobs for one run: one target, one mode, the load's
    parameters, its summary printed to the log."""
    script = Path(load.script).name
    job = copy.deepcopy(templates[script])
    job["metadata"]["name"] = name
    job["metadata"].setdefault("labels", {})["loom-lab.dev/run"] = "warm-up" if warmup else "measured"
    job["spec"]["activeDeadlineSeconds"] = load.timeout_s + 60
    k6_env = loads.k6_mode(mode)
    env = {"SCRIPT": script, "TARGETS": target, "MODES": k6_env.pop("MODE"), **k6_env, "RESULTS": "/results",
           "SUMMARY_LOG": "1",
           "RUN_LABEL": label, **load.env, **(load.warmup_env if warmup else {})}
    job["spec"]["template"]["spec"]["containers"][0]["env"] = [{"name": k, "value": str(v)} for k, v in env.items()]
    return job


def wait_job(api: cluster.Api, name: str, timeout_s: float) -> dict:
    """The Job's pod once its k6 container has terminated (succeeded or not)."""
    selector = urllib.parse.quote(f"batch.kubernetes.io/job-name={name}")

    def done():
        for p in api.json(f"/api/v1/namespaces/{NS}/pods?labelSelector={selector}", 5)["items"]:
            statuses = p["status"].get("containerStatuses") or []
            if statuses and statuses[0]["state"].get("terminated"):
                return p
            waiting = statuses[0]["state"].get("waiting", {}) if statuses else {}
            if waiting.get("reason") in ("ErrImagePull", "ImagePullBackOff", "CreateContainerConfigError",
                                         "InvalidImageName"):
                raise SystemExit(f"Job {name}: {waiting['reason']}: {waiting.get('message', '')}")
        return None

    pod = proc.wait_until(done, timeout_s, 0.5)
    if not pod:
        raise SystemExit(f"Job {name} did not finish within {timeout_s:.0f} s")
    return pod


def pod_log(api: cluster.Api, pod: dict, timeout: float = 30) -> str:
    return api.get(f"/api/v1/namespaces/{NS}/pods/{pod['metadata']['name']}/log", timeout).decode(errors="replace")


def policy_probe(api: cluster.Api, templates: dict) -> str:
    """Whether the NetworkPolicies are enforced, measured: a pod that postgres-from-service-only
    does not admit (a k6 pod) opens a TCP connection to the database."""
    job = copy.deepcopy(next(iter(templates.values())))
    name = job_id("netpol-probe")
    job["metadata"]["name"] = name
    job["spec"]["activeDeadlineSeconds"] = 60
    container = job["spec"]["template"]["spec"]["containers"][0]
    container["command"] = ["bash", "-c", "if timeout 5 bash -c 'exec 3<>/dev/tcp/postgres/5432'; then echo reached;"
                                          " else echo refused; fi"]
    container["env"] = []
    apply([job])
    pod = wait_job(api, name, 90)
    log = pod_log(api, pod, 10).strip()
    delete_job(name)
    if log == "reached":
        return ("NetworkPolicies (deploy/k8s/base) are applied but not enforced, measured: a k6 pod opened a TCP"
                " connection to postgres:5432, which postgres-from-service-only forbids. The CNI bridge plugin has"
                " no policy engine, and none could be built here (kube-network-policies and kube-router are not"
                " served by the Go module proxy)")
    return f"NetworkPolicies enforced, measured: a k6 pod's connection to postgres:5432 was {log or 'not made'}"
