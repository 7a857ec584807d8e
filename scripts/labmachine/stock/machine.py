"""The stock machine itself: a cached pristine Debian root filesystem, a fresh copy per run with the
committed checkout in it, and each step run in a namespace of its own (mounts, PIDs) on this
machine's network."""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

from labmachine.stock.plan import Done, Step
from loomlab import ROOT, LabError

SUITE = "bookworm"
JDK = Path("/usr/lib/jvm/temurin-25-jdk-amd64")
GO = Path("/usr/local/go")
CA_BUNDLE = Path("/etc/ssl/certs/ca-certificates.crt")
# Root-only and private: the cached pristine root filesystem and each run's copy of it.
HOME = Path("/var/cache/loom-lab/stock")
# The ports a local run listens on in this (shared) network namespace: the service, the lab's
# database, the bench's second service port.
PORTS = (8080, 8081, 54329)
# A week: the cached root filesystem is made again after it, as a stock machine's would be newer.
MAX_AGE_S = 7 * 24 * 3600
# What a user's shell has: Debian's root PATH, Go not on it (the lab finds it in /usr/local/go).
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def warm_caches() -> list[tuple[Path, str]]:
    """This machine's download and build caches that exist: (host path, path inside)."""
    home = Path.home()
    gopath = Path(os.environ.get("GOPATH", home / "go"))
    candidates = [
        (home / ".m2" / "repository", "/root/.m2/repository"),
        (gopath / "pkg" / "mod", "/root/go/pkg/mod"),
        (home / ".cache" / "go-build", "/root/.cache/go-build"),
    ]
    return [(p, inside) for p, inside in candidates if p.is_dir()]


def namespace_script(rootfs: Path, run: Path, step: Step, caches: list[tuple[Path, str]]) -> str:
    """The bash run by `unshare --mount --pid --fork`: mounts (private to the namespace), then the
    step in the chroot with a user's environment and nothing of the caller's."""
    r = shlex.quote(str(rootfs))
    lines = [
        "set -euo pipefail",
        f"mount -t proc proc {r}/proc",
        f"mount --rbind /sys {r}/sys && mount --make-rslave {r}/sys",
        f"mount --rbind /dev {r}/dev && mount --make-rslave {r}/dev",
        f"mount --bind /etc/resolv.conf {r}/etc/resolv.conf",
    ]
    for host, inside in ((JDK, str(JDK)), (GO, str(GO))):
        target = shlex.quote(f"{rootfs}{inside}")
        lines += [f"mount --bind {shlex.quote(str(host))} {target}", f"mount -o remount,bind,ro {target}"]
    for i, (host, inside) in enumerate(caches):
        upper, work = run / "caches" / str(i) / "upper", run / "caches" / str(i) / "work"
        lines.append(
            f"mount -t overlay overlay -o lowerdir={host},upperdir={upper},workdir={work}"
            f" {shlex.quote(f'{rootfs}{inside}')}"
        )
    env = {
        "HOME": "/root",
        "PATH": PATH,
        "LANG": "C.UTF-8",
        "TERM": "dumb",
        "DEBIAN_FRONTEND": "noninteractive",
        # pip's own certifi and node ignore Debian's store: named as a user behind a proxy would.
        "PIP_CERT": str(CA_BUNDLE),
        "NODE_EXTRA_CA_CERTS": str(CA_BUNDLE),
    }
    inner = f"cd /root/loom-lab && {step.line}"
    assignments = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    lines.append(f"exec chroot {r} /usr/bin/env -i {assignments} /bin/bash -c {shlex.quote(inner)}")
    return "\n".join(lines) + "\n"


def private_dir(path: Path) -> Path:
    """A root-owned directory only root can enter, made if missing; refused if it is a symlink or
    someone else's (a path another user made first must not become root's)."""
    for p in [*reversed(path.parents[: len(path.parts) - 3]), path]:
        p.mkdir(mode=0o700, exist_ok=True)
        st = os.lstat(p)
        if stat.S_ISLNK(st.st_mode) or not stat.S_ISDIR(st.st_mode) or st.st_uid != 0:
            raise LabError(f"{p} is not a root-owned directory (a symlink or another user's): remove it")
    os.chmod(path, 0o700)
    return path


def pristine(fresh: bool) -> Path:
    """The cached root filesystem as mmdebstrap made it (a tar, ~420 MB, 1-3 min to make), made again
    when older than a week."""
    tar = private_dir(HOME) / f"{SUITE}-standard.tar"
    if fresh or not tar.exists() or time.time() - tar.stat().st_mtime > MAX_AGE_S:
        if shutil.which("mmdebstrap") is None:
            subprocess.run(["apt-get", "install", "-y", "-qq", "mmdebstrap"], check=True, timeout=600)
        print(f"stock: Debian {SUITE} (standard) from Debian's packages with mmdebstrap", file=sys.stderr)
        partial = tar.with_suffix(".partial")
        subprocess.run(
            ["mmdebstrap", "--quiet", "--variant=standard", "--mode=root", "--format=tar", SUITE, str(partial)],
            check=True,
            timeout=1200,
        )
        partial.replace(tar)
    return tar


def prepare(tar: Path, run: Path, caches: list[tuple[Path, str]]) -> Path:
    """A fresh copy of the root filesystem with the committed checkout at /root/loom-lab and the
    mount points the namespace needs."""
    rootfs = run / "rootfs"
    rootfs.mkdir(mode=0o755)
    subprocess.run(["tar", "-C", str(rootfs), "--numeric-owner", "-xpf", str(tar)], check=True, timeout=600)
    subprocess.run(
        ["git", "clone", "-q", "--no-hardlinks", str(ROOT), str(rootfs / "root" / "loom-lab")], check=True, timeout=600
    )
    for point in (str(JDK), str(GO), *(inside for _, inside in caches)):
        (rootfs / point.lstrip("/")).mkdir(parents=True, exist_ok=True)
    for i in range(len(caches)):
        for part in ("upper", "work"):
            (run / "caches" / str(i) / part).mkdir(parents=True)
    resolv = rootfs / "etc" / "resolv.conf"  # the mount point of this machine's (mmdebstrap leaves none)
    if resolv.is_symlink():
        resolv.unlink()
    resolv.touch()
    ca = rootfs / "usr/local/share/ca-certificates/this-machine.crt"
    shutil.copyfile(CA_BUNDLE, ca)
    jdk_trust_store(rootfs)
    return rootfs


def jdk_trust_store(rootfs: Path) -> None:
    """The mounted JDK stands in for the one the README tells the user to install, whose trust store
    comes with it; this machine's JDK links its `cacerts` to a keystore outside the JDK (Debian's
    ca-certificates-java), which a stock root filesystem lacks: the keystore is copied to where the
    link points, or Maven's first download fails ("the trustAnchors parameter must be non-empty")."""
    link = JDK / "lib" / "security" / "cacerts"
    if not link.is_symlink():
        return
    target = link.resolve()
    if target.is_relative_to(JDK) or not target.is_file():
        return
    inside = rootfs / str(target).lstrip("/")
    inside.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(target, inside)


def mounted_under(path: Path) -> list[str]:
    """Mount points at or below path in this namespace (none once every step's namespace ended)."""
    prefix = str(path)
    points = [line.split()[4] for line in Path("/proc/self/mountinfo").read_text().splitlines()]
    return [p for p in points if p == prefix or p.startswith(prefix + "/")]


def run_step(rootfs: Path, run: Path, step: Step, caches: list[tuple[Path, str]], deadline: float) -> Done:
    script = namespace_script(rootfs, run, step, caches)
    print(f"stock: {step.name}: {step.line}", file=sys.stderr, flush=True)
    started = time.monotonic()
    argv = ["unshare", "--mount", "--pid", "--fork", "--kill-child", "--propagation", "private", "bash", "-c", script]
    try:
        status = subprocess.run(argv, timeout=max(1.0, deadline - started), env={"PATH": os.environ["PATH"]}).returncode
    except subprocess.TimeoutExpired:
        status = 124
    return Done(step.name, step.line, status, round(time.monotonic() - started, 1))


def keep(rootfs: Path, out: Path) -> None:
    """The inner run's latest report, copied out before the root filesystem goes."""
    latest = rootfs / "root/loom-lab/target/loom-lab/latest"
    if latest.is_symlink():
        target = latest.parent / os.readlink(latest)
        for name in ("report.md", "results.json"):
            if (target / name).is_file():
                shutil.copyfile(target / name, out / name)
