"""`./lab k8s failover`: one of two service pods killed (SIGKILL) under a constant load.

The JVM variant runs 2 pods (the PodDisruptionBudget's case) in the virtual mode; one loadgen Job
offers a constant arrival rate to their Service (the bench's open sleep load at this rate and length)
and writes every request (loadgen's -samples) to the results volume; part-way through, the lab
kills one pod's JVM with SIGKILL through containerd, as an out-of-memory kill or a crash would. The
report gives the requests that failed and over which window, the arrivals dropped, and how long
the killed pod took to serve again (the kubelet restarts its container). Writes failover.md and
failover.json.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path

from loomlab import LabError, proc
from loomlab.bench import api as bench
from loomlab.incluster import cli
from loomlab.incluster.core import jobs, jobwaits, services
from loomlab.incluster.core.measure import ClusterService
from loomlab.incluster.core.node import LabNode, needed
from loomlab.incluster.core.plan import VARIANTS
from loomlab.kube import Kube
from loomlab.podstatus import running
from loomlab.render import render
from loomlab.table import fmt

VARIANT, MODE = "jvm", bench.Lane(bench.VIRTUAL)


def failures(samples_csv: str) -> tuple[int, list[tuple[float, str]]]:
    """(requests, [(unix seconds, status)] of the failed ones) from loadgen's -samples: a failure as
    k6 counted one, no answer or a status outside 200-399."""
    requests = bench.requests_of(samples_csv)
    failed = [(sent, "no answer" if s == 0 else f"HTTP {s}") for sent, _, s in requests if not 200 <= s < 400]
    return len(requests), sorted(failed)


def summary_line(total: int, failed: list[tuple[float, str]], killed_at: float) -> str:
    if not failed:
        return f"none of {total:,} requests failed"
    statuses = Counter(status for _, status in failed)
    return (
        f"{len(failed):,} of {total:,} requests failed ({', '.join(f'{n} {s}' for s, n in sorted(statuses.items()))}),"
        f" from {failed[0][0] - killed_at:+.1f} s to {failed[-1][0] - killed_at:+.1f} s after the kill"
    )


def kill(kube: Kube, pod: str, node: LabNode) -> float:
    """SIGKILL to the pod's service container through the node's containerd; the time it was sent."""
    status = kube.pod(pod)["status"]["containerStatuses"][0]
    container = status["containerID"].split("://", 1)[1]
    sent = time.time()
    node.kill(container)
    return sent


def serving_again(kube: Kube, victim: str) -> float | None:
    """When (unix seconds) the killed pod is restarted and Ready again; None until it is."""
    status = kube.pod(victim)["status"]["containerStatuses"][0]
    return time.time() if status["restartCount"] > 0 and status.get("ready") else None


def open_load(suite: bench.Suite, rate: int, seconds: int) -> bench.Load:
    """The sleep endpoint (100 ms) at a constant arrival rate, carried by the bench's open sleep load
    (the Job finds it by its name and takes these parameters): every failure is a request lost."""
    env = {"SLEEP_MS": "100", "MODEL": "open", "RATE": str(rate), "DURATION": f"{seconds}s", "MAX_VUS": "500"}
    name = f"open {rate} req/s for {seconds} s"
    load = bench.Load(name, "k6/sleep.js", "sleep", env, rate=rate, open_s=seconds, timeout_s=seconds + 120)
    return jobs.carried(load, suite)


def main(argv, node: LabNode | None = None):
    args = cli.failover(argv)
    # Through any kubeconfig of the lab's cluster (a namespaced runner's too): the kill is the node's.
    lab = needed(node, None, "failover kills a pod's container through its node's containerd")
    run = services.OneVariant.start(args, VARIANTS[VARIANT].name)
    out, kube, name, container = run.out, run.kube, run.name, run.container
    load = open_load(run.suite, args.rate, args.seconds)
    env = container.get("env", [])
    service = ClusterService(kube, VARIANT, run.suite, MODE, "failover", env, run.templates, out, [], 2)
    service.wait_ready()
    job_name = jobs.job_id("failover")
    job = jobs.make_job(service.jobs, load, job_name, service.url, MODE.key, "failover", False)
    # Every request in loadgen's CSV, in a folder of the Job's own.
    jobs.set_env(job["spec"]["template"]["spec"]["containers"][0], SAMPLES="1", RESULTS=f"/results/{job_name}")
    victim = service.pods[0]
    shape = f"open {args.rate} req/s for {args.seconds} s"
    print(f"== {shape} ({MODE.key}) on {name}'s 2 pods; {victim} killed {args.kill_at:.0f} s in", flush=True)
    try:
        kube.apply([job])
        if not proc.wait_until(lambda: any(map(running, kube.job_pods(job_name))), 120, 0.2):
            raise LabError(f"Job {job_name} did not start")
        time.sleep(args.kill_at + 3)  # the Job waits for the service to answer it first: a few seconds
        killed_at = kill(kube, victim, lab)
        back_at = proc.wait_until(lambda: serving_again(kube, victim), 120, 0.2)
        log = jobwaits.pod_log(kube, jobwaits.wait_job(kube, job_name, load.timeout_s))
        jobwaits.fetch_results(kube, job, out / "samples")
        samples = (out / "samples" / "run.samples.csv").read_text()
    finally:
        kube.delete("batch/v1", "Job", job_name)
    printed = bench.loadgen_run(log)
    figures = printed["figures"] if printed else {}
    total, failed = failures(samples)
    result = {  # failover.json
        "load": shape,
        "mode": MODE.key,
        "victim": victim,
        "killed_at": killed_at,
        "serving_again_s": back_at - killed_at if back_at else None,
        "requests": total,
        "failed": [[t - killed_at, s] for t, s in failed],
        "dropped": figures.get("dropped"),
        "summary": summary_line(total, failed, killed_at),
    }
    (out / "failover.json").write_text(json.dumps(result, indent=1))
    write_report(out, args, name, result, figures)


def write_report(out: Path, args, name: str, result: dict, figures: dict):
    """failover.md: the setup, the answer (what failed, for how long) and the generator's figures."""
    again = result["serving_again_s"]
    back = f"{again:.1f} s" if again is not None else "not within 120 s"
    text = render(
        "failover.md.j2",
        r=result,
        f=figures,
        args=args,
        name=name,
        back=back,
        date=time.strftime("%Y-%m-%d %H:%M %Z"),
        fmt=fmt,
    )
    (out / "failover.md").write_text(text)
    print(f"{result['summary']}; serving again after {back}", flush=True)
    print(f"report: {out / 'failover.md'}", flush=True)
