"""The node's CPU during a run, by who spent it: the service, k6, the database, Prometheus, the
cluster's other pods (KEDA, CoreDNS, metrics-server, other namespaces') and the host outside every
pod (the control plane, the kubelet, containerd, kube-router, the lab itself).

Read where this host is the node (the lab's own cluster: the service pod's cgroup is found here):
the machine's busy CPU from /proc/stat and each pod's from the kubelet's cgroups (cgroup v1's
cpuacct or v2's cpu.stat, the cgroupfs layout the lab's kubelet uses), before and after the run.
A pod is named by its labels through the API; one this run may not list (another namespace, for a
namespaced Role) counts among the other pods."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from loomlab import stats
from loomlab.kube import Kube
from loomlab.table import Table, fmt, fmt_spread

CGROUP = Path("/sys/fs/cgroup")
# The kubelet's pod cgroups under each QoS class (cgroupfs driver): v1 under the cpuacct controller.
POD_DIRS = ("kubepods", "kubepods/burstable", "kubepods/besteffort")
# /proc/stat's cpu line: the busy fields (user nice system idle iowait irq softirq steal: not idle, iowait).
BUSY = (0, 1, 2, 5, 6, 7)
# A group per component label of the namespace's pods; every other pod is "other pods". The load's
# pods are keyed "k6" in every record (the runs before 2026-11-28 were k6's); a table names them by
# the generator its runs used.
GROUPS = {"service": "service", "load": "k6", "database": "database", "monitoring": "Prometheus"}
OTHER_PODS, HOST = "other pods", "host (control plane, kubelet, containerd, the lab)"
ORDER = (*GROUPS.values(), OTHER_PODS, HOST)
# The groups whose kernel share the table gives beside their CPU: the two ends of the load's path.
KERNEL_SHOWN = ("service", "k6")


def busy_s(stat: str) -> float:
    """The machine's busy CPU seconds from /proc/stat's text (its first line, in clock ticks)."""
    fields = [int(f) for f in stat.splitlines()[0].split()[1:]]
    return sum(fields[i] for i in BUSY if i < len(fields)) / os.sysconf("SC_CLK_TCK")


def pod_usage_s(root: Path = CGROUP) -> dict[str, tuple[float, float]]:
    """Each pod's CPU seconds by its UID, all and the kernel's, from the kubelet's cgroups (v1 cpuacct,
    else v2)."""
    found: dict[str, tuple[float, float]] = {}
    v1 = root / "cpuacct"
    base = v1 if v1.is_dir() else root
    for sub in POD_DIRS:
        for d in (base / sub).glob("pod*"):
            uid = d.name[3:]
            if (d / "cpuacct.usage").is_file():
                system = d / "cpuacct.usage_sys"
                kernel = int(system.read_text()) / 1e9 if system.is_file() else 0.0
                found[uid] = (int((d / "cpuacct.usage").read_text()) / 1e9, kernel)
            elif (d / "cpu.stat").is_file():
                usage = dict(line.split() for line in (d / "cpu.stat").read_text().splitlines())
                found[uid] = (int(usage["usage_usec"]) / 1e6, int(usage.get("system_usec", 0)) / 1e6)
    return found


@dataclass
class Reading:
    busy_s: float
    pods_s: dict[str, tuple[float, float]]  # UID -> (CPU seconds, of which the kernel's)

    @classmethod
    def now(cls, root: Path = CGROUP, stat: Path = Path("/proc/stat")) -> Reading:
        return cls(busy_s(stat.read_text()), pod_usage_s(root))


def on_this_host(uids: list[str], root: Path = CGROUP) -> bool:
    """Whether the pods run on this host: each one's cgroup is found here."""
    here = pod_usage_s(root)
    return bool(uids) and all(u in here for u in uids)


def groups_of(kube: Kube) -> dict[str, str]:
    """Each listable pod's UID -> its group (GROUPS by its component label)."""
    return {
        p["metadata"]["uid"]: GROUPS.get(
            p["metadata"].get("labels", {}).get("app.kubernetes.io/component", ""), OTHER_PODS
        )
        for p in kube.pods("")
    }


def split(before: Reading, after: Reading, groups: dict[str, str], kernel: bool = False) -> dict[str, float]:
    """The CPU seconds each group spent between two readings (a pod that came or went counts what it
    spent while seen; the host is the machine's busy time less every pod's); `kernel`: each pod
    group's kernel seconds alone (the host's is not split)."""
    spent = {g: 0.0 for g in ORDER}
    for uid, usage in after.pods_s.items():
        was = before.pods_s.get(uid, (0.0, 0.0))
        spent[groups.get(uid, OTHER_PODS)] += max(0.0, usage[kernel] - was[kernel])
    if kernel:
        del spent[HOST]
        return spent
    pods = sum(spent.values())
    spent[HOST] = max(0.0, after.busy_s - before.busy_s - pods)
    return spent


def table(sections: list[dict]) -> Table | None:
    """Per load and mode, the node's CPU by group as ms per answered request (each run's seconds over
    its requests, medians over the runs), the kernel's share of the service's and k6's where the runs
    read it (since 2026-11-27), and the node's cores busy over the run's Job; None where no run read
    the node."""
    measured = [
        (s["load"], mode, runs)
        for s in sections
        for mode, res in s.get("results", {}).items()
        if (runs := [r for r in res.get("runs", []) if r.get("node_cpu_s") and r.get("wall_s") and r.get("requests")])
    ]
    kernel = any("node_kernel_s" in r for _, _, runs in measured for r in runs)
    shown = KERNEL_SHOWN if kernel else ()
    engines = {r.get("engine", "k6") for _, _, runs in measured for r in runs}
    named = {GROUPS["load"]: engines.pop() if len(engines) == 1 else "load generator"}
    t = Table(
        ["load", "mode", "runs", *(f"{named.get(g, g)} ms/req" for g in ORDER)]
        + [*(f"{named.get(g, g)}: kernel" for g in shown), "node cores busy over the Job"]
    )

    def per_request(runs: list[dict], key: str, group: str) -> str:
        return fmt(stats.Spread.of([r[key][group] / r["requests"] * 1000 for r in runs if key in r]).median, 3)

    for load, mode, runs in measured:
        busy = stats.Spread.of([sum(r["node_cpu_s"].values()) / r["wall_s"] for r in runs])
        t.add(
            load,
            mode,
            str(len(runs)),
            *(per_request(runs, "node_cpu_s", g) for g in ORDER),
            *(per_request(runs, "node_kernel_s", g) for g in shown),
            fmt_spread(busy, 2),
        )
    return t if t.rows else None


def section(sections: list[dict]) -> list[str]:
    """The in-cluster report's section on the node's CPU (its lines), or none where no run read it."""
    t = table(sections)
    if t is None:
        return []
    return [
        "## The node's CPU during the runs",
        "",
        "Where this host is the node (the lab's own cluster): the machine's busy CPU (/proc/stat) and each"
        " pod's (the kubelet's cgroups) over each run's load Job, from its creation to its end (the load"
        " pod's start is in it), as CPU ms per answered request; the host is everything outside the pods."
        " Medians over the runs.",
        "",
        t.markdown(),
        "",
    ]
