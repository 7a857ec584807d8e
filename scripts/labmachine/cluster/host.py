"""The host: what `up` needs of it, its sysctls and kernel modules, and the snapshot that proves
`down` put back what the cluster changed on it (network.py makes the bridge and its rules)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from .settings import PORTS, fail, say, sh

# Chains of ours and of the components; `down` removes exactly these.
CHAIN_PREFIXES = ("KUBE-", "CNI-", "LOOMLAB-")
# Kernel settings the cluster changes (the kubelet sets the vm/kernel ones unless
# protectKernelDefaults): recorded by `up`, restored by `down`.
SYSCTLS = [
    "net.ipv4.ip_forward",
    "net.bridge.bridge-nf-call-iptables",
    "net.bridge.bridge-nf-call-ip6tables",
    "vm.overcommit_memory",
    "vm.panic_on_oom",
    "kernel.panic",
    "kernel.panic_on_oops",
    "kernel.keys.root_maxkeys",
    "kernel.keys.root_maxbytes",
    "net.ipv4.conf.all.route_localnet",
    "net.netfilter.nf_conntrack_max",
    "net.netfilter.nf_conntrack_tcp_timeout_established",
    "net.netfilter.nf_conntrack_tcp_timeout_close_wait",
]
# Host paths a component writes to by default whatever we configure; removed by `down` when `up`
# found them absent.
HOST_PATHS = [
    "/var/lib/cni",
    "/var/log/containers",
    "/var/log/pods",
    "/run/netns",
    "/etc/cni",
    "/var/lib/kubelet",
    "/run/containerd",
    "/etc/kubernetes",
]


def _rules(save: str) -> list[str]:
    p = sh(save, check=False)
    # Counters and comments change by themselves; the rules are what matters.
    return sorted(
        line.split(" [")[0] if line.startswith(":") else line
        for line in p.stdout.splitlines()
        if line and not line.startswith("#")
    )


def host_state() -> dict:
    links = sorted(line.split(": ")[1].split("@")[0] for line in sh("ip", "-o", "link").stdout.splitlines())
    addrs = sorted(" ".join(line.split()[1:4]) for line in sh("ip", "-o", "addr").stdout.splitlines())
    routes = sorted(sh("ip", "route", "show", "table", "all").stdout.splitlines())
    mounts = sorted(line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines())
    listening = sorted(
        {
            " ".join(line.split()[:1] + line.split()[4:5])
            for line in sh("ss", "-H", "-l", "-n", "-t", "-u").stdout.splitlines()
            if line.strip()
        }
    )
    cgroups = sorted(str(d) for c in Path("/sys/fs/cgroup").iterdir() if c.is_dir() for d in c.iterdir() if d.is_dir())
    return {
        "iptables": _rules("iptables-save"),
        "ip6tables": _rules("ip6tables-save"),
        "nft": nft_tables(),
        "ipsets": ipsets(),
        "links": links,
        "addresses": addrs,
        "routes": routes,
        "mounts": mounts,
        "listening": listening,
        "sysctls": read_sysctls(),
        "cgroups": cgroups,
        "paths": {p: os.path.lexists(p) for p in HOST_PATHS},
    }


def nft_tables() -> list[str]:
    """The nftables tables (iptables' nf_tables backend creates filter, nat, mangle on first use)."""
    if not shutil.which("nft"):
        return []
    return sorted(sh("nft", "list", "tables", check=False).stdout.splitlines())


def ipsets() -> list[str]:
    """The kernel's IP sets by name (kube-router's firewall keeps a set per policy's peers)."""
    if not shutil.which("ipset"):
        return []
    return sorted(sh("ipset", "list", "-n", check=False).stdout.split())


def drop_ipsets(keep: list[str]):
    """Destroys every IP set but those of `keep` (what was there before `up`): kube-router's, once
    no rule refers to them."""
    for name in set(ipsets()) - set(keep):
        sh("ipset", "destroy", name, check=False)


def read_sysctls() -> dict:
    values = {}
    for key in SYSCTLS:
        path = Path("/proc/sys") / key.replace(".", "/")
        if path.exists():
            values[key] = path.read_text().strip()
    return values


def write_sysctl(key: str, value: str):
    path = Path("/proc/sys") / key.replace(".", "/")
    if path.exists() and path.read_text().strip() != value:
        path.write_text(value)


def compare_host(before: dict, after: dict) -> list[str]:
    diffs = []
    for key in before:
        b, a = before[key], after.get(key)
        if a is None:
            diffs.append(f"{key}: gone")
            continue
        if b == a:
            continue
        if isinstance(b, list):
            gone = [x for x in b if x not in a]
            new = [x for x in a if x not in b]
            diffs += [f"{key}: gone  {x}" for x in gone] + [f"{key}: added {x}" for x in new]
        else:
            diffs += [f"{key}: {k} was {b.get(k)}, now {a.get(k)}" for k in b if b.get(k) != a.get(k)]
    return diffs


def apart(diffs: list[str], port: int) -> tuple[list[str], list[str]]:
    """`diffs` as the cluster's and the rest: a listening socket added on `port` (the lab's local
    database, doctor.probes.pg_port: `./lab test` and `./lab bench` leave it running, whether or not a
    cluster is up) is not the cluster's to undo."""
    theirs = [d for d in diffs if d.startswith("listening: added ") and d.rsplit(":", 1)[-1] == str(port)]
    return [d for d in diffs if d not in theirs], theirs


BRIDGE_NF = Path("/proc/sys/net/bridge/bridge-nf-call-iptables")  # present once br_netfilter is loaded
MODULES_LOADED = "modules-loaded"  # under RUN: the kernel modules `up` loaded, which `down` unloads


def br_netfilter_loadable() -> bool:
    """Loaded already, or a module this kernel can load (Debian ships it; nothing loads it before a
    container runtime asks)."""
    return BRIDGE_NF.exists() or (
        shutil.which("modinfo") is not None and sh("modinfo", "br_netfilter", check=False).returncode == 0
    )


def load_br_netfilter() -> bool:
    """Loads br_netfilter where it is missing: True when this call loaded it (`down` unloads it)."""
    if BRIDGE_NF.exists():
        return False
    sh("modprobe", "br_netfilter")
    if not BRIDGE_NF.exists():
        fail("modprobe br_netfilter succeeded but /proc/sys/net/bridge did not appear")
    return True


def unload(modules: list[str]):
    for module in modules:
        if sh("modprobe", "-r", module, check=False).returncode != 0:
            say(f"left the {module} kernel module loaded (in use by something else): modprobe -r {module}")


def preflight():
    """What `up` needs, checked before it changes anything."""
    missing = []
    if os.geteuid() != 0:
        missing.append("root (containerd, the kubelet, iptables and the bridge need it): run as root")
    status = Path("/proc/self/status").read_text().splitlines()
    cap_eff = int(next(line for line in status if line.startswith("CapEff:")).split()[1], 16)
    for bit, name in ((12, "CAP_NET_ADMIN (bridge, iptables)"), (21, "CAP_SYS_ADMIN (mounts, namespaces)")):
        if not cap_eff & (1 << bit):
            missing.append(name)
    for cmd in (
        "containerd",
        "ctr",
        "runc",
        "ip",
        "iptables",
        "iptables-save",
        "iptables-restore",
        "ipset",
        "ip6tables-save",
        "ip6tables-restore",
        "openssl",
        "conntrack",
        "ss",
        "kubectl",
    ):
        if not shutil.which(cmd):
            missing.append(f"command {cmd} (Debian: containerd runc iptables ipset conntrack iproute2 openssl)")
    for plugin in ("bridge", "host-local", "loopback"):
        if not Path(f"/usr/lib/cni/{plugin}").exists():
            missing.append(f"CNI plugin /usr/lib/cni/{plugin} (Debian: containernetworking-plugins)")
    if not br_netfilter_loadable():
        missing.append(
            "the br_netfilter kernel module, neither loaded nor found by modinfo (Services between pods on one bridge "
            "need it; Debian: kmod, and the kernel's own modules)"
        )
    if not os.access("/sys/fs/cgroup", os.W_OK) and not any(
        os.access(c, os.W_OK) for c in Path("/sys/fs/cgroup").glob("*")
    ):
        missing.append("writable cgroups (/sys/fs/cgroup)")
    busy = [p for p in PORTS if port_in_use(p)]
    if busy:
        missing.append(f"free ports {busy} (another cluster or etcd is running?)")
    if missing:
        fail("cannot bring the cluster up here; missing:\n  - " + "\n  - ".join(missing))


def port_in_use(port: int) -> bool:
    return any(
        line.split()[3].rsplit(":", 1)[-1] == str(port)
        for line in sh("ss", "-H", "-l", "-n", "-t").stdout.splitlines()
        if line.strip()
    )


def clean_iptables(save: str, restore: str, prefixes: tuple[str, ...] = CHAIN_PREFIXES):
    """Removes every chain named with `prefixes` and every rule that jumps to one, leaving the rest
    of each table as it is (what `kube-proxy --cleanup` does, for all of them at once)."""
    kept, changed = without_our_chains(sh(save, check=False).stdout, prefixes)
    if changed:
        sh(restore, input=kept)


def without_our_chains(text: str, prefixes: tuple[str, ...] = CHAIN_PREFIXES) -> tuple[str, bool]:
    """An iptables-save text without the chains named with `prefixes` and the rules that use them."""
    kept, changed = [], False
    for line in text.splitlines():
        if line.startswith(":") and line[1:].startswith(prefixes):
            changed = True
            continue
        if line.startswith("-A "):
            words = line.split()
            targets = [words[i + 1] for i, w in enumerate(words[:-1]) if w in ("-j", "-g", "--jump", "--goto")]
            if words[1].startswith(prefixes) or any(t.startswith(prefixes) for t in targets):
                changed = True
                continue
        kept.append(line)
    return "\n".join(kept) + "\n", changed
