"""The doctor's probes: each looks at one prerequisite of the lab on this machine and answers a
Finding (found or not, and what it saw). Standard library only."""

from __future__ import annotations

import hashlib
import os
import platform
import re
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from loomlab import CACHE, ROOT, proc

PG_BIN = Path("/usr/lib/postgresql/15/bin")
ROOT_USER = os.geteuid() == 0
APT = "apt-get install -y"
# Go: k6 v1.8.1 and loadgen (vegeta v12.13.0's library) declare go 1.24; the lab's Kubernetes build
# (kube-router, KEDA) 1.26. Debian 12's golang-go is 1.19; a Go >= 1.21 fetches a newer toolchain
# itself when GOTOOLCHAIN asks for it.
GO_FOR_LOADGEN = (1, 24)
GO_FOR_K8S = (1, 26)
GO_FOR_KUBECTL = (1, 25)  # scripts/k8s/kubernetes/go.mod, where ./lab builds kubectl alone
GO_FROM = (
    "Go {need}+ from https://go.dev/dl (tar -C /usr/local -xzf go1.26.*.linux-amd64.tar.gz;"
    " PATH=/usr/local/go/bin:$PATH), or with any Go >= 1.21: export GOTOOLCHAIN=go{need}.0+auto"
)


@dataclass(frozen=True)
class Finding:
    ok: bool
    found: str


def run(*cmd: str, timeout: float = 60) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)


def version_of(text: str) -> tuple[int, ...]:
    found = re.search(r"(\d+)\.(\d+)", text)
    return (int(found.group(1)), int(found.group(2))) if found else (0, 0)


def debian() -> Finding:
    release = Path("/etc/os-release").read_text() if Path("/etc/os-release").exists() else ""
    name = re.search(r'^PRETTY_NAME="?([^"\n]*)', release, re.M)
    return Finding("VERSION_CODENAME=bookworm" in release, name.group(1) if name else "unknown")


def arch() -> Finding:
    machine = platform.machine()
    return Finding(machine == "x86_64", machine)


def python() -> Finding:
    return Finding(sys.version_info >= (3, 11), platform.python_version())


def venv() -> Finding:
    if (ROOT / ".venv" / "bin" / "python").exists():
        return Finding(True, f"{ROOT / '.venv'} exists")
    done = run(sys.executable, "-c", "import ensurepip, venv")
    return Finding(done.returncode == 0, "python3 -m venv works" if done.returncode == 0 else "no ensurepip")


def jdk() -> Finding:
    """The JDK ./lab picks (common.sh's pick_jdk, the one place that picks it)."""
    done = run("bash", "-c", f'source "{ROOT}/scripts/common.sh"; pick_jdk >/dev/null 2>&1 && echo "$JAVA_HOME"')
    home = done.stdout.strip()
    if done.returncode == 0 and home:
        return Finding(True, home)
    return Finding(False, "no JDK >= 25 (java on PATH: " + (shutil.which("java") or "none") + ")")


def go(need: tuple[int, int], skip: Callable[[], str]) -> Callable[[], Finding]:
    def probe() -> Finding:
        done = skip()
        if done:
            return Finding(True, done)
        path = shutil.which("go")
        if not path:
            return Finding(False, "no go on PATH")
        have = version_of(run(path, "env", "GOVERSION").stdout)
        toolchain = os.environ.get("GOTOOLCHAIN", "")
        ok = have >= need or (have >= (1, 21) and version_of(toolchain) >= need)
        seen = f"go {'.'.join(map(str, have))} at {path}"
        return Finding(ok, seen + (f", GOTOOLCHAIN={toolchain}" if ok and toolchain else ""))

    return probe


def loadgen_built() -> str:
    done = run("bash", str(ROOT / "scripts" / "gotool.sh"), "loadgen", "--if-built")
    return f"loadgen built: {done.stdout.strip()}" if done.returncode == 0 else ""


def reference_built() -> str:
    done = run("bash", str(ROOT / "scripts" / "gotool.sh"), "reference", "--if-built")
    return f"reference server built: {done.stdout.strip()}" if done.returncode == 0 else ""


def k8s_bin() -> Path:
    """Where scripts/k8s/tools.sh puts the Kubernetes binaries of the pinned module: named by its
    version and the hash of its go.mod and go.sum."""
    module = ROOT / "scripts" / "k8s" / "kubernetes"
    mod, summed = (module / "go.mod").read_bytes(), (module / "go.sum").read_bytes()
    version = re.search(rb"^require k8s\.io/kubernetes v(\S+)", mod, re.M)
    name = f"v{version.group(1).decode() if version else '?'}-{hashlib.sha256(mod + summed).hexdigest()[:12]}"
    return CACHE / "k8s-tools" / name


def k8s_built() -> str:
    built = k8s_bin()
    return f"the Kubernetes components built: {built}" if (built / "kube-apiserver").exists() else ""


def jdk21() -> Finding:
    """The JDK 21 runtime the tests and `--jdk 21` run on (scripts/jdk21.sh), fetched or not yet."""
    done = run("bash", str(ROOT / "scripts" / "jdk21.sh"), "--if-fetched")
    return Finding(done.returncode == 0, done.stdout.strip() if done.returncode == 0 else "not fetched yet")


def kubectl_found() -> str:
    """kubectl on PATH, or the one ./lab built where none was (scripts/k8s/tools.sh --kubectl)."""
    path, built = shutil.which("kubectl"), k8s_bin() / "kubectl"
    return f"kubectl at {path}" if path else f"the lab's kubectl: {built}" if built.exists() else ""


def kubectl() -> Finding:
    found = kubectl_found()
    return Finding(bool(found), found or "none on PATH")


def node() -> Finding:
    """The Node npm runs on: k6/package-lock.json's @npmcli/arborist (the licence gate's checker)
    declares ^20.17.0 || >=22.9.0."""
    if not shutil.which("node"):
        return Finding(False, "missing")
    found = version_of(run("node", "--version").stdout)
    return Finding(found >= (20, 17), "Node {}.{}".format(*found))


def command(name: str, *more: str) -> Callable[[], Finding]:
    def probe() -> Finding:
        missing = [c for c in (name, *more) if not shutil.which(c)]
        return Finding(not missing, "missing: " + " ".join(missing) if missing else "found")

    return probe


def database_url() -> bool:
    return bool(os.environ.get("QUARKUS_DATASOURCE_JDBC_URL"))


def postgres() -> Finding:
    if database_url():
        return Finding(True, "QUARKUS_DATASOURCE_JDBC_URL names the database")
    return Finding((PG_BIN / "initdb").exists(), str(PG_BIN) if (PG_BIN / "initdb").exists() else f"no {PG_BIN}/initdb")


def pgvector() -> Finding:
    if database_url():
        return Finding(True, "QUARKUS_DATASOURCE_JDBC_URL names the database")
    if not (PG_BIN / "pg_config").exists():
        return Finding(False, "PostgreSQL 15 first")
    lib = Path(run(str(PG_BIN / "pg_config"), "--pkglibdir").stdout.strip()) / "vector.so"
    if lib.exists():
        return Finding(True, str(lib))
    if not ROOT_USER:
        return Finding(False, f"not installed; building it into {lib.parent} needs root")
    return Finding(False, "built on first use (with Debian's gcc, make and dpkg-dev)")


def ports_free(*ports: int) -> Callable[[], Finding]:
    def probe() -> Finding:
        busy = [p for p in ports if proc.listening(p)]
        return Finding(not busy, f"in use: {', '.join(map(str, busy))}" if busy else "free")

    return probe


def pg_port() -> int:
    """The lab database's port: scripts/db.sh's LOOMLAB_PG_PORT, 54329 by default."""
    return int(os.environ.get("LOOMLAB_PG_PORT", "54329"))


def database_port() -> Finding:
    """The database's port free, or held by the lab's own database (scripts/db.sh status)."""
    if database_url() or not proc.listening(pg_port()):
        return Finding(True, "free" if not database_url() else "QUARKUS_DATASOURCE_JDBC_URL names the database")
    own = run("bash", str(ROOT / "scripts" / "db.sh"), "status")
    if own.returncode == 0:
        return Finding(True, "the lab's own database")
    if os.geteuid() != 0 and Path("/var/lib/loom-lab/pg").is_dir():
        return Finding(False, "in use, most likely by root's lab database: sudo ./lab db stop")
    return Finding(False, "in use by another process")


def memory(gib: float) -> Callable[[], Finding]:
    def probe() -> Finding:
        total = re.search(r"MemTotal:\s+(\d+)", Path("/proc/meminfo").read_text())
        have = int(total.group(1)) / 2**20 if total else 0
        return Finding(have >= gib, f"{have:.0f} GiB")

    return probe


def root() -> Finding:
    return Finding(ROOT_USER, "root" if ROOT_USER else f"uid {os.geteuid()}")


def cgroups() -> Finding:
    """Writable cgroups, v2 or v1 (the kubelet's pods live there; cluster/host.py's preflight)."""
    base = Path("/sys/fs/cgroup")
    v2 = (base / "cgroup.controllers").exists()
    ok = os.access(base, os.W_OK) or any(os.access(c, os.W_OK) for c in base.glob("*"))
    return Finding(ok, f"{'v2' if v2 else 'v1'}, {'writable' if ok else 'not writable'}")


def br_netfilter() -> Finding:
    """Bridge netfilter, loaded or loadable (`./lab k8s up` loads it and `down` unloads it). The same
    test as cluster/host.py's preflight, not imported: the doctor runs before the venv exists."""
    if Path("/proc/sys/net/bridge/bridge-nf-call-iptables").exists():
        return Finding(True, "loaded")
    ok = bool(shutil.which("modinfo")) and run("modinfo", "br_netfilter").returncode == 0
    return Finding(ok, "not loaded; ./lab k8s up loads it" if ok else "neither loaded nor found by modinfo")


def debian_packages(*names: str) -> Callable[[], Finding]:
    def probe() -> Finding:
        missing = [n for n in names if "install ok installed" not in run("dpkg-query", "-W", "-f=${Status}", n).stdout]
        return Finding(not missing, "missing: " + " ".join(missing) if missing else "installed")

    return probe


CLUSTER_PACKAGES = (
    "containerd",
    "runc",
    "containernetworking-plugins",
    "buildah",
    "mmdebstrap",
    "iptables",
    "ipset",
    "conntrack",
    "nftables",
)
