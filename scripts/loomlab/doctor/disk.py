"""The disk a command still needs: what each part of the lab writes the first time it is made (at its
peak) unless it is there already, and what every run writes. Standard library only.

The figures were read with df and du through a whole `.ci/run` on a fresh machine (2026-11-27):
a command asks for the parts of its branch that are not made yet, so a machine whose caches are
full is not refused for the gigabytes it wrote long ago (CI's later steps once were, with just
under 10 GiB free, by a flat 10 GiB asked of every Java command)."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

from loomlab import ROOT, branches, labcluster

from .probes import CACHE, Finding, k8s_built, loadgen_built, run

# What every run writes besides the parts: its results and logs, the database's rows, a jar.
RUN_GIB = 2.0


def maven_filled() -> bool:
    """Maven's repository holds Quarkus (the first build downloads about 220 MB)."""
    return (Path.home() / ".m2" / "repository" / "io" / "quarkus").is_dir()


def database_made() -> bool:
    """The lab's database cluster exists (in the folder scripts/db.sh says it keeps it in)."""
    folder = run("bash", str(ROOT / "scripts" / "db.sh"), "dir").stdout.strip()
    return bool(folder) and (Path(folder) / "data" / "PG_VERSION").is_file()


def node_made() -> bool:
    """A cluster is up here: its node's containerd root exists."""
    return labcluster.CONTAINERD_ROOT.is_dir()


def images_built() -> bool:
    """scripts/k8s/images.sh has archived the lab's images once."""
    return any(labcluster.IMAGES.glob("*.tar"))


# Part of the lab -> (GiB it writes the first time, at its peak; made already?).
FIRST_TIME: dict[str, tuple[float, Callable[[], bool]]] = {
    # Maven's repository (0.2), the build (0.1), the JDK 21 runtime (0.1)
    "java": (1.0, maven_filled),
    # PostgreSQL's cluster (0.3 after the bench's ingest runs) and pgvector's build
    "db": (1.0, database_made),
    # loadgen: vegeta's modules and Go's build cache of it (0.2)
    "loadgen": (0.5, lambda: bool(loadgen_built())),
    # the Kubernetes components: Go's module cache (5.7, kept), its build cache (9.8, removed once
    # they are built by scripts/k8s/tools.sh) and the binaries (1.5)
    "cluster": (17.0, lambda: bool(k8s_built())),
    # the node's own state: containerd's unpacked images, etcd, the pods' volumes (4.3); `down`
    # wipes it, so every `up` asks for it
    "node": (5.0, node_made),
    # buildah's storage (2.4), the images' archives (2.9), the registry's copies (0.6)
    "images": (6.0, images_built),
}


def parts_of(*hows: str) -> set[str]:
    """What the commands of these branches may make the first time (branches.BRANCHES)."""
    return {part for how in hows if how in branches.BRANCHES for part in branches.BRANCHES[how].makes}


def need(groups: set[str]) -> tuple[float, list[str]]:
    """GiB still to write for a command of these parts, and the parts not made yet."""
    missing = [g for g, (_, made) in FIRST_TIME.items() if g in groups and not made()]
    return RUN_GIB + sum(FIRST_TIME[g][0] for g in missing), missing


def space(groups: set[str], where: Path = CACHE) -> Callable[[], Finding]:
    """Free space under `where` against what a command of these parts still writes."""

    def probe() -> Finding:
        where.mkdir(parents=True, exist_ok=True)
        gib, missing = need(groups)
        free = shutil.disk_usage(where).free / 2**30
        first = f", the first {', '.join(missing)} build{'s' if len(missing) > 1 else ''} included" if missing else ""
        return Finding(free >= gib, f"{free:.1f} GiB free under {where}; {gib:.0f} GiB needed{first}")

    return probe
