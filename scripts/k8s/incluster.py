#!/usr/bin/env python3
"""`./lab k8s run`: the comparison in the cluster, the way a user runs it.

Applies deploy/k8s/local (the database and the JVM and JVM+AOT variants side by side, from the
images built here), then runs the bench's loads (scripts/bench/: the same suites, warm-up,
repeats, bounds and report) with two differences only: the service is a Deployment whose pod is
replaced for each suite and mode (its start-up measured: pod created -> Ready), and each k6 run is
a Kubernetes Job of deploy/k8s/jobs running the very scripts of k6/ against the variant's Service.
Everything is read as a user would: Job results from the pod's log, /q/metrics and /q/health
through the Service (the API server's service proxy). Writes report.md, report.html and
results.json like ./lab bench, each section naming its environment.

Called by ./lab with the cluster up and the images built; see `./lab k8s run --help`.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import re
import subprocess
import sys
import time
import urllib.parse
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
from bench import loads, report, runner  # noqa: E402
import cluster  # noqa: E402
import labreport as lr  # noqa: E402
import proc  # noqa: E402

ROOT = HERE.parents[1]
NS = "loom-lab"
# variant -> (Deployment and Service, environment named in the report, image archive)
VARIANTS = {
    "jvm": ("loom-lab-jvm", "in-cluster JVM", "jvm"),
    "jvm-aot": ("loom-lab-jvm-aot", "in-cluster JVM+AOT", "jvm-aot"),
    "native": ("loom-lab-native", "in-cluster native", "native"),
}
SUMMARY_BEGIN = "----- loom-lab k6 summary -----"
SUMMARY_END = "----- end of loom-lab k6 summary -----"
STARTED_IN = re.compile(r"started in (\d+\.\d+)s")


def render(directory: str) -> list[dict]:
    p = subprocess.run(["kubectl", "kustomize", str(ROOT / directory)], capture_output=True, text=True, check=True)
    import yaml  # noqa: PLC0415 - from the verify venv, like every Kubernetes script here

    return [d for d in yaml.safe_load_all(p.stdout) if d]


def apply(docs: list[dict]):
    cluster.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": docs}))


class ClusterService:
    """A variant's Deployment as the service under test: runner.Service's methods, in the cluster.

    Starting it sets the suite's configuration on the Deployment and rolls a fresh pod (Recreate),
    whose start-up is measured; runs are k6 Jobs; scrapes go through the Service."""

    def __init__(self, api: cluster.Api, variant: str, suite: loads.Suite, mode: str, tag: str,
                 base_env: list[dict], jobs: dict, out: Path, startups: list):
        self.api, self.variant, self.mode, self.out, self.jobs = api, variant, mode, out, jobs
        self.name, self.environment, _ = VARIANTS[variant]
        self.url = f"http://{self.name}:8080"  # as the Jobs' pods reach it (cluster DNS)
        self.proxy = f"/api/v1/namespaces/{NS}/services/http:{self.name}:http/proxy"
        self.token = f"{tag}-{mode}-{time.time_ns()}"
        self.startup = {"variant": variant, "suite": tag, "mode": mode}
        startups.append(self.startup)
        env = base_env + [{"name": k, "value": v} for k, v in suite.server_env.items()]
        patch = [{"op": "replace", "path": "/spec/template/spec/containers/0/env", "value": env},
                 {"op": "add", "path": "/spec/template/metadata/annotations/loom-lab.dev~1run", "value": self.token}]
        cluster.kubectl("-n", NS, "patch", "deployment", self.name, "--type=json", "-p", json.dumps(patch))

    def _pod(self) -> dict | None:
        selector = urllib.parse.quote(f"app.kubernetes.io/component=service,app.kubernetes.io/variant={self.variant}")
        pods = self.api.json(f"/api/v1/namespaces/{NS}/pods?labelSelector={selector}", 5)["items"]
        return next((p for p in pods if p["metadata"].get("annotations", {}).get("loom-lab.dev/run") == self.token), None)

    def wait_ready(self, timeout_s: float = 180):
        """Until the new pod is Ready; pod created -> Ready is its start-up, polled every 0.1 s."""
        pod = proc.wait_until(self._pod, timeout_s, 0.1)
        if not pod:
            raise SystemExit(f"{self.name}: no new pod within {timeout_s} s")
        created = time.monotonic()

        def ready():
            p = self._pod()
            return p if p and any(c["type"] == "Ready" and c["status"] == "True"
                                  for c in p["status"].get("conditions", [])) else None

        pod = proc.wait_until(ready, timeout_s, 0.1)
        if not pod:
            raise SystemExit(f"{self.name}: pod not Ready within {timeout_s} s "
                             f"(kubectl -n {NS} describe pod -l app.kubernetes.io/variant={self.variant})")
        self.pod = pod["metadata"]["name"]
        self.startup["ready_s"] = time.monotonic() - created
        log = self.api.get(f"/api/v1/namespaces/{NS}/pods/{self.pod}/log", 10).decode(errors="replace")
        started = STARTED_IN.search(log)
        self.startup["quarkus_started_s"] = float(started.group(1)) if started else math.nan
        self.startup["rss_ready_mb"] = self._rss()
        self.startup["health"] = json.loads(self.get("/q/health")).get("status")
        if not proc.wait_until(lambda: json.loads(self.get("/q/health/ready")).get("status") == "UP", 30):
            raise SystemExit(f"{self.name}: /q/health/ready not UP through the Service")

    def _rss(self) -> float:
        return lr.scrape_sample(self.get("/q/metrics"))["rss_bytes"] / 1e6

    def get(self, path: str, timeout: float = 10) -> str:
        try:
            return self.api.get(self.proxy + path, timeout).decode()
        except Exception as e:  # noqa: BLE001 - the Sampler skips a failed scrape (OSError)
            raise OSError(str(e)) from e

    def run(self, load: loads.Load, mode: str, out: Path, label: str, args, warmup: bool = False) -> dict:
        out.parent.mkdir(parents=True, exist_ok=True)
        job_name = job_id(out.stem)
        job = make_job(self.jobs, load, job_name, self.url, mode, label, warmup)
        sampler = runner.Sampler(self, args.sample_period)
        sampler.scrape()
        sampler.start()
        started = time.monotonic()
        try:
            apply([job])
            pod = wait_job(self.api, job_name, load.timeout_s + 120)
        finally:
            samples = sampler.finish()
        took = time.monotonic() - started
        log = self.api.get(f"/api/v1/namespaces/{NS}/pods/{pod['metadata']['name']}/log", 30).decode(errors="replace")
        cluster.kubectl("-n", NS, "delete", "job", job_name, "--wait=false", "--cascade=background", check=False)
        summary_text = summary_of(log)
        out.with_suffix(".log").write_text(log.replace(summary_text, "(raw summary: see the .json)") if summary_text else log)
        out.with_suffix(".metrics.jsonl").write_text("".join(json.dumps(s) + "\n" for s in samples))
        if not summary_text:
            raise SystemExit(f"k6 Job {job_name} ({label}) printed no summary; its log:\n{log[-2000:]}")
        out.write_text(summary_text)
        exit_code = pod["status"]["containerStatuses"][0]["state"]["terminated"]["exitCode"]
        return runner.figures_of(load, json.loads(summary_text), samples, exit_code, took)

    def stop(self):
        self.startup["rss_after_mb"] = self._rss()


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
    log = api.get(f"/api/v1/namespaces/{NS}/pods/{pod['metadata']['name']}/log", 10).decode().strip()
    cluster.kubectl("-n", NS, "delete", "job", name, "--wait=false", "--cascade=background", check=False)
    if log == "reached":
        return ("NetworkPolicies (deploy/k8s/base) are applied but not enforced, measured: a k6 pod opened a TCP"
                " connection to postgres:5432, which postgres-from-service-only forbids. The CNI bridge plugin has"
                " no policy engine, and none could be built here (kube-network-policies and kube-router are not"
                " served by the Go module proxy)")
    return f"NetworkPolicies enforced, measured: a k6 pod's connection to postgres:5432 was {log or 'not made'}"


def wait_rollouts(names: list[str], timeout_s: int = 300):
    for kind_name in names:
        cluster.kubectl("-n", NS, "rollout", "status", kind_name, f"--timeout={timeout_s}s", timeout=timeout_s + 10)


def startup_table(startups: list[dict]) -> lr.Table:
    t = lr.Table(["environment", "pods", "pod created -> Ready s", "Quarkus started in s", "RSS at Ready MB",
                  "RSS after load MB", "health"])
    for variant, (_, environment, _) in VARIANTS.items():
        rows = [s for s in startups if s["variant"] == variant and "ready_s" in s]
        if not rows:
            continue
        spread = lambda k: lr.fmt_spread(lr.Spread.of([r[k] for r in rows if not math.isnan(r.get(k, math.nan))]),
                                         2 if k.endswith("_s") else 0)
        t.add(environment, str(len(rows)), spread("ready_s"), spread("quarkus_started_s"), spread("rss_ready_mb"),
              spread("rss_after_mb"), ", ".join(sorted({r.get("health") or "?" for r in rows})))
    return t


def local_table(sections: list[dict], local: Path) -> lr.Table | None:
    """The in-cluster figures beside the latest local bench of the same profile (same scripts)."""
    f = local / "results.json"
    if not f.exists():
        return None
    data = json.loads(f.read_text())
    key = lambda s: (s["workload"], s["load"])
    envs = ["local JVM"] + [v[1] for v in VARIANTS.values() if any(s["environment"] == v[1] for s in sections)]
    by = {}
    for s in data["sections"] + sections:
        if not s.get("variant"):
            by.setdefault(key(s), {})[s.get("environment", "local JVM")] = s
    t = lr.Table(["workload", "load", "mode", *(f"{e} req/s" for e in envs), *(f"{e} mean ms" for e in envs)])
    for k, per_env in by.items():
        if len(per_env) < 2 or "local JVM" not in per_env:
            continue
        modes = [m for m in loads.MODES if any(m in s["results"] for s in per_env.values())]
        for mode in modes:
            agg = {e: lr.aggregate(per_env[e]["results"][mode]["runs"]) for e in envs
                   if e in per_env and mode in per_env[e]["results"]}
            t.add(k[0], k[1], mode, *(lr.fmt(agg[e]["throughput"].median) if e in agg else "-" for e in envs),
                  *(lr.fmt(agg[e]["mean"].median) if e in agg else "-" for e in envs))
    return t if t.rows else None


def workload_suites(profile: str) -> dict:
    """Every workload's main suite at the profile's scale: smoke's, or the bench's quick and rest
    profiles together (quick holds only the request-response workloads)."""
    profiles = ("smoke",) if profile == "smoke" else ("quick", "rest")
    return {s.workload: s for p in profiles for s in loads.suites(p) if not s.variant}


def main(argv=None):
    p = argparse.ArgumentParser(prog="lab k8s run", description=__doc__.split("\n\n")[0])
    p.add_argument("--out", required=True)
    p.add_argument("--profile", choices=["quick", "smoke"], default="quick",
                   help="quick: warm-up and 3 runs per load; smoke: seconds, one run each (CI)")
    p.add_argument("--workload", default="", help="comma-separated (default: sleep,product)")
    p.add_argument("--variants", default="jvm,jvm-aot,native",
                   help="service variants (default: every one whose image exists here)")
    p.add_argument("--mode", default="", help="worker, virtual, reactive or virtual+rx, comma-separated "
                   "(default: every mode a workload has)")
    p.add_argument("--strict", action="store_true", help="exit 1 when a measured run failed")
    p.add_argument("--repeats", type=int, default=3)
    p.add_argument("--warmups", type=int, default=15)
    p.add_argument("--warmup-seconds", type=float, default=15)
    p.add_argument("--warmup-tolerance", type=float, default=0.03)
    p.add_argument("--sample-period", type=float, default=0.5)
    p.add_argument("--chartjs", default="")
    p.add_argument("--local", default=str(ROOT / "target/loom-lab/latest"),
                   help="a ./lab bench report to print beside the in-cluster figures")
    p.add_argument("--plan", action="store_true", help="print what would run and exit")
    args = p.parse_args(argv)
    args.dashboards = "none"  # k6's dashboard export is a local-file feature; Jobs print summaries
    if args.profile == "smoke":
        args.warmups, args.repeats, args.warmup_seconds = min(args.warmups, 1), 1, 0
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    wanted = [w for w in args.workload.split(",") if w] or ["sleep", "product"]
    suites = workload_suites(args.profile)
    unknown = [w for w in wanted if w not in suites]
    if unknown:
        raise SystemExit(f"unknown workload(s): {', '.join(unknown)}")
    images = cluster.IMAGES
    variants, skipped = [], []
    for v in [v for v in args.variants.split(",") if v]:
        if v not in VARIANTS:
            raise SystemExit(f"unknown variant {v} ({', '.join(VARIANTS)})")
        if not (images / f"{VARIANTS[v][2]}.tar").exists():
            skipped.append(f"{v}: no image here" + (
                " (a native executable needs GraalVM or Mandrel: ./lab native; neither exists on this machine)"
                if v == "native" else f" (./lab k8s images {v})"))
            continue
        variants.append(v)
    # smoke (CI): sleep on every variant, the other workloads on the first one only.
    plan = [(v, suites[w]) for w in wanted for v in variants
            if args.workload or args.profile != "smoke" or w == "sleep" or v == variants[0]]
    modes = {m for m in args.mode.split(",") if m}
    def planned_s(suite: loads.Suite, mode: str) -> float:
        # The bench's plan plus a few seconds per Job: pod start, k6 start, log read.
        p = runner.planned_seconds(suite, mode, args)
        return p["start"] + sum(p["runs"].values()) + 4 * len(suite.loads) * (args.repeats + 2)

    planned = sum(planned_s(s, m) for _, s in plan for m in runner.suite_modes(s, modes))
    print(f"plan: {len(plan)} suite x variant ({', '.join(f'{s.workload} on {v}' for v, s in plan)}); about "
          f"{lr.fmt_duration(planned)} with pod start-ups and Jobs", flush=True)
    for s in skipped:
        print(f"skipped: {s}", flush=True)
    if args.plan:
        return
    if not variants:
        raise SystemExit("no service variant has an image: ./lab k8s images")

    api = cluster.Api()
    print("== applying deploy/k8s/local (database, JVM and JVM+AOT variants) and the k6 scripts", flush=True)
    service_docs = render("deploy/k8s/local")
    ours = {VARIANTS[v][0] for v in variants}
    apply([d for d in service_docs if d["kind"] not in ("Deployment", "Service") or d["metadata"]["name"] in ours
           or d["metadata"]["name"] == "postgres"])
    job_docs = render("deploy/k8s/local/jobs")
    apply([d for d in job_docs if d["kind"] != "Job"])  # the scripts' ConfigMap, the results volume
    templates = {}
    for d in job_docs:
        if d["kind"] == "Job" and not d["spec"].get("completionMode") == "Indexed":
            env = {e["name"]: e.get("value") for e in d["spec"]["template"]["spec"]["containers"][0].get("env", [])}
            templates[env["SCRIPT"]] = d
    wait_rollouts(["statefulset/postgres"] + [f"deployment/{VARIANTS[v][0]}" for v in variants])
    policies = policy_probe(api, templates)
    print(f"== {policies}", flush=True)
    base_env = {d["metadata"]["name"]: d["spec"]["template"]["spec"]["containers"][0].get("env", [])
                for d in service_docs if d["kind"] == "Deployment"}

    startups: list[dict] = []
    progress = {"done": 0, "total": sum(len(s.loads) for _, s in plan), "started": time.monotonic(),
                "planned_total": planned, "planned_done": 0.0}
    sections, info = [], {}
    for variant, suite in plan:
        name, environment, _ = VARIANTS[variant]

        def start(suite_, mode, tag, args_, out_, variant=variant, name=name):
            return ClusterService(api, variant, suite_, mode, tag, base_env[name], templates, out_, startups)

        s, i = runner.measure([copy.deepcopy(suite)], args, out, modes, progress, start, environment, f"{variant}-")
        sections += s
        info = i or info

    version = api.json("/version")
    node = api.json(f"/api/v1/nodes/{cluster.NODE}")["status"]["nodeInfo"]
    limits = next(d for d in service_docs if d["kind"] == "Deployment")["spec"]["template"]["spec"]["containers"][0]["resources"]
    k6_version = subprocess.run(["bash", str(ROOT / "scripts/k6.sh")], capture_output=True, text=True).stdout.strip()
    k6_version = subprocess.run([k6_version, "version"], capture_output=True, text=True).stdout.split("(")[0].strip()
    meta = {"title": "loom-lab in-cluster report", "date": time.strftime("%Y-%m-%d %H:%M %Z"),
            "command": "./lab k8s run " + " ".join(a for a in (argv if argv is not None else sys.argv[1:]) if a not in (str(out), args.chartjs, "--out", "--chartjs")),
            "machine": report.machine(), "info": info, "k6": k6_version, "warmups": args.warmups,
            "repeats": args.repeats, "warmup_tolerance": args.warmup_tolerance, "profile": args.profile,
            "warmup_seconds": args.warmup_seconds, "sample_period": args.sample_period, "dashboards": "none",
            "k6_where": "one Kubernetes Job per run (deploy/k8s/jobs, the scripts of k6/), on the same node as the"
                        " service: they share its 2 CPUs",
            "jvm_where": " (a fresh pod per suite and mode, Recreate)",
            "setup": [f"- cluster: Kubernetes {version.get('gitVersion')} on one node ({node['kernelVersion']},"
                      f" {node['containerRuntimeVersion']}), CNI bridge; built and run by ./lab k8s up",
                      f"- service pods: requests {limits['requests']}, limits {limits['limits']} (deploy/k8s/local:"
                      " the two-cores component); images built here (./lab k8s images)",
                      f"- {policies}",
                      *(f"- skipped: {s}" for s in skipped)]}
    extra = ["## Start-up in the cluster", "",
             "Each suite and mode gets a fresh pod (pod created -> Ready, polled every 0.1 s through the API;"
             " readiness probed every second); 'Quarkus started in' is the service's own log line; RSS from"
             " /q/metrics through the Service at Ready and after the suite's runs. Median (min-max).", "",
             startup_table(startups).markdown(), ""]
    beside = local_table(sections, Path(args.local))
    if beside:
        extra += [f"## Beside the local bench ({Path(args.local).resolve().name})", "",
                  "Same k6 scripts and loads; local = `./lab bench` on this machine (k6 and the JVM on the same"
                  " cores), medians.", "", beside.markdown(), ""]
    (out / "startup.json").write_text(json.dumps(startups, indent=1))
    print("\n" + "\n".join(extra[:1] + [startup_table(startups).text()]))
    if beside:
        print(f"\nbeside the local bench:\n{beside.text()}")
    report.finish(out, args, meta, sections, extra)


if __name__ == "__main__":
    main()
