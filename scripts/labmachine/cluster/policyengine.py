"""The lab's NetworkPolicy engine (kube-router, firewall only) as a switch: off stops it and takes
away its chains and IP sets, so nothing is enforced; on starts it and returns once every
NetworkPolicy of the cluster has its chain. `./lab k8s netpol --cost` measures what enforcement
costs by turning it off and on between runs. The lab's cluster only: a user's cluster keeps its own
engine running."""

from __future__ import annotations

import json
import time
from pathlib import Path

from loomlab import proc

from . import host
from .api import api
from .processes import rss_kib, running, stop, tools
from .settings import RUN, sh
from .up import start_policy_engine

# kube-router's own chains: its top-level ones, one per pod it firewalls, one per policy.
CHAINS = ("KUBE-ROUTER-", "KUBE-POD-FW-", "KUBE-NWPLCY-")
# What kube-router logs at the start of each full sync of its rules, and how long without one
# counts as settled (its periodic sync comes every --iptables-sync-period, 1 min here).
SYNC_LINE = "Starting sync of iptables"
QUIET_S = 5.0


def policy_chains() -> int:
    return sum(line.startswith(":KUBE-NWPLCY-") for line in sh("iptables-save", "-t", "filter").stdout.splitlines())


def off() -> None:
    stop("kube-router")
    host.clean_iptables("iptables-save", "iptables-restore", CHAINS)
    host.drop_ipsets(json.loads((RUN / "host-before.json").read_text()).get("ipsets", []))


def on(timeout_s: float = 60) -> float:
    """Starts the engine; the seconds until every NetworkPolicy had its chain and the engine's
    start-up syncs were over (its informers' first events each ask for a full sync: measured, about
    2 s of them after a start). A run that began inside them measured the start, not enforcement."""
    started = time.monotonic()
    log = RUN / "logs" / "kube-router.log"
    if not running("kube-router"):
        start_policy_engine(tools())
    policies = len(api().json("/apis/networking.k8s.io/v1/networkpolicies")["items"])
    if not proc.wait_until(lambda: policy_chains() >= policies, timeout_s, 0.5):
        raise RuntimeError(f"kube-router made no chain for {policies} policies (see {log})")
    if not proc.wait_until(quiet(log), timeout_s, 0.5):
        raise RuntimeError(f"kube-router kept syncing for {timeout_s:.0f} s (see {log})")
    return time.monotonic() - started


def quiet(log: Path, seconds: float = QUIET_S):
    """A check that is true once `log` has had no new full sync for `seconds`."""
    state = {"syncs": -1, "since": time.monotonic()}

    def check() -> bool:
        syncs = log.read_text(errors="replace").count(SYNC_LINE)
        if syncs != state["syncs"]:
            state.update(syncs=syncs, since=time.monotonic())
        return time.monotonic() - state["since"] >= seconds

    return check


def usage() -> tuple[float, float]:
    """kube-router's CPU seconds so far and its resident memory (MiB), from /proc."""
    pid = running("kube-router")
    if not pid:
        return 0.0, 0.0
    stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = int(stat[11]) + int(stat[12])  # utime, stime
    return ticks / 100.0, rss_kib(pid) / 1024
