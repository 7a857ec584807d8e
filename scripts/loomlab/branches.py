"""The branches of ./lab's dispatch (each command's `how` in loomlab.commands): what the commands of a
branch need of this machine, which the doctor checks and ./lab's gate stops on, and what they may
make the first time, for which the doctor asks for disk (doctor/disk.py's sizes). Standard library
only: ./lab reads it with Debian's python3 before anything is installed."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Branch:
    """A branch (a command's `how`): the parts of the lab its commands need and may make the first time."""

    needs: tuple[str, ...]
    makes: tuple[str, ...] = ()


# Every branch that needs more than any command does ("any"); the others need that alone.
BRANCHES: dict[str, Branch] = {
    # Every load on loadgen (bench.engines); k6 only where a user asks for it (--engine k6).
    "bench": Branch(("any", "harness", "java", "db", "loadgen", "charts"), ("java", "db", "loadgen")),
    "test": Branch(("any", "harness", "java", "db", "lint", "tests", "kubectl"), ("java", "db")),
    "serve": Branch(("any", "java", "db", "serve"), ("java", "db")),
    "startup": Branch(("any", "harness", "java", "db", "loadgen"), ("java", "db", "loadgen")),
    "aot": Branch(("any", "java", "db", "tests"), ("java", "db")),
    "native": Branch(("any", "java"), ("java",)),
    "db": Branch(("any", "db"), ("db",)),
    "k6": Branch(("any", "k6")),
    "cluster": Branch(("any", "harness", "cluster", "kubectl"), ("cluster", "node")),  # up (./lab gates only up)
    # scripts/k8s/images.sh builds loadgen and the cluster's tools (pause, Prometheus, KEDA) it packs
    "images": Branch(("any", "java", "images"), ("java", "loadgen", "cluster", "images")),
    "deploy": Branch(("any", "harness", "java", "images", "kubectl"), ("java", "loadgen", "cluster", "images", "node")),
    "python": Branch(("any", "harness", "kubectl")),
    "verify": Branch(("any", "harness", "kubectl"), ("cluster",)),  # scripts/k8s/verify.sh runs scripts/k8s/tools.sh
    "rerun": Branch(("any", "kubectl")),
}
