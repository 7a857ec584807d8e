"""`down`: every process stopped by PID, every host change undone, then the host compared with
the snapshot `up` took (exit 1 on any difference)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from pathlib import Path

from loomlab import proc
from loomlab.doctor.probes import pg_port

from . import host, outside
from .api import kubectl
from .processes import running, stop
from .settings import BRIDGE, CONTAINERD_ROOT, CTR, LAST_LOGS, RUN, SOCK, Step, fail, say, sh


def down(compare: bool = True):
    if not RUN.exists():
        say("no cluster state here: nothing to do")
        return
    before_file = RUN / "host-before.json"
    before = json.loads(before_file.read_text()) if before_file.exists() else None
    modules_file = RUN / host.MODULES_LOADED
    modules = modules_file.read_text().split() if modules_file.exists() else []
    with Step("pods deleted, then the components stopped"):
        stop_pods()
    with Step("containers removed, containerd stopped"):
        stop_containerd()
    with Step("API server, etcd and the registry stopped"):
        for name in ("kube-apiserver", "etcd", "registry"):
            stop(name)
    with Step("mounts, cgroups, network namespaces, bridge, iptables chains, sysctls undone"):
        undo_host(before)
    if compare and before:
        diffs, database = host.apart(host.compare_host(before, host.host_state()), pg_port())
        if database:
            say(f"the lab's local database listens on {pg_port()} (not the cluster's: ./lab db stop stops it)")
        if diffs:
            print("\n".join(f"  {d}" for d in diffs))
            fail("the host differs from before `up` (above)")
        say(
            "host restored: iptables, interfaces, addresses, routes, mounts, listening sockets, sysctls, IP sets and "
            "cgroups are as before `up`"
        )
    # Last: the snapshot was taken with them loaded (their sysctls are part of it).
    host.unload(modules)


def stop_pods():
    stop("kube-controller-manager")
    stop("kube-scheduler")
    if running("kube-apiserver") and running("kubelet"):
        # The kubelet tears pods down properly (CNI DEL: veth and IP released) while it runs.
        kubectl(
            "delete",
            "pods",
            "--all",
            "--all-namespaces",
            "--grace-period=0",
            "--force",
            "--wait=false",
            check=False,
            timeout=30,
        )
        proc.wait_until(
            lambda: running("containerd") is None
            or not sh(*CTR, "tasks", "ls", "-q", check=False, timeout=5).stdout.strip(),
            30,
            0.5,
        )
    for name in ("kube-router", "metrics-server", "kubelet", "kube-proxy", "coredns"):
        stop(name)
    kill_pods()


def stop_containerd():
    if running("containerd"):
        for task in sh(*CTR, "tasks", "ls", "-q", check=False, timeout=10).stdout.split():
            sh(*CTR, "tasks", "kill", "-s", "SIGKILL", task, check=False, timeout=10)
            sh(*CTR, "tasks", "delete", "-f", task, check=False, timeout=10)
        for c in sh(*CTR, "containers", "ls", "-q", check=False, timeout=10).stdout.split():
            sh(*CTR, "containers", "delete", c, check=False, timeout=10)
    stop("containerd")
    for pid in our_shims():
        proc.stop_pid(pid, 5)


def our_shims() -> list[int]:
    """containerd's shims, which outlive it by design: the processes that run a containerd-shim binary
    with our socket as their -address. Nothing else (an editor on a log, a tail -f) is touched."""
    found = []
    for p in Path("/proc").glob("[0-9]*"):
        try:
            argv = (p / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if is_our_shim(argv):
            found.append(int(p.name))
    return found


def is_our_shim(argv: list[bytes]) -> bool:
    if not argv or not Path(argv[0].decode(errors="replace")).name.startswith("containerd-shim"):
        return False
    address = str(SOCK).encode()
    return any(f in (b"-address", b"--address") and v == address for f, v in zip(argv, argv[1:], strict=False))


def undo_host(before: dict | None):
    unmount_under(RUN, CONTAINERD_ROOT)
    existed = (before or {}).get("paths", {})
    netns = Path("/run/netns")
    if netns.is_dir():
        for ns in netns.glob("cni-*"):
            subprocess.run(["umount", "-l", str(ns)], capture_output=True)
            ns.unlink(missing_ok=True)
    for d in cgroup_dirs():
        for sub in sorted((p for p in d.rglob("*") if p.is_dir()), key=lambda p: -len(p.parts)):
            sub.rmdir()
        d.rmdir()
    # up's proof from outside, should up have died in it: its veth pair goes with its host end.
    sh("ip", "link", "del", outside.HOST_END, check=False)
    if sh("ip", "link", "show", BRIDGE, check=False).returncode == 0:
        for veth in sh("ip", "-o", "link", "show", "master", BRIDGE, check=False).stdout.splitlines():
            sh("ip", "link", "del", veth.split(": ")[1].split("@")[0], check=False)
        sh("ip", "link", "del", BRIDGE)
    host.clean_iptables("iptables-save", "iptables-restore")
    host.clean_iptables("ip6tables-save", "ip6tables-restore")
    host.drop_ipsets((before or {}).get("ipsets", []))
    if before:
        # Tables the components' first iptables call created, now empty: gone as they came.
        for table in set(host.nft_tables()) - set(before.get("nft", [])):
            sh("nft", "delete", *table.split(), check=False)  # "table ip filter"
        for key, value in before["sysctls"].items():
            host.write_sysctl(key, value)
    for path, was in existed.items():
        if not was and os.path.lexists(path):
            subprocess.run(["umount", "-R", "-l", path], capture_output=True)
            shutil.rmtree(path, ignore_errors=True) if os.path.isdir(path) else os.unlink(path)
    # The components' logs outlive the cluster (until the next `down`): a failed run's cause is in them.
    shutil.rmtree(LAST_LOGS, ignore_errors=True)
    if (RUN / "logs").is_dir():
        shutil.move(RUN / "logs", LAST_LOGS)
    shutil.rmtree(RUN)


def cgroup_dirs() -> list[Path]:
    return [d for c in Path("/sys/fs/cgroup").iterdir() if (d := c / "kubepods").is_dir()]


def kill_pods():
    """Every process in the kubelet's cgroups, killed."""
    for _ in range(20):
        pids = {int(p) for d in cgroup_dirs() for f in d.rglob("cgroup.procs") for p in f.read_text().split()}
        if not pids:
            return
        for pid in pids:
            try:
                os.kill(pid, 9)
            except ProcessLookupError:
                pass
        time.sleep(0.25)


def unmount_under(*roots: Path):
    prefixes = tuple(str(r) for r in roots)
    for _ in range(5):
        mounts = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
        ours = [m for m in mounts if m.startswith(prefixes)]
        if not ours:
            return
        for m in reversed(ours):
            subprocess.run(["umount", "-l", m], capture_output=True)
