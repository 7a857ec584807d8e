"""./lab's commands, written once: each command's words, synopsis and summary, where its options are
declared and how ./lab runs it. ./lab's usage, every `--help` and its dispatch come from this table.
Standard library only: ./lab asks it with Debian's python3 before anything is installed (help builds nothing).

    python3 -m loomlab.commands usage          the usage
    python3 -m loomlab.commands help ARGS...   exit 0 after printing the help ARGS ask for, 1 when
                                               they ask none, 2 (with the usage) on an unknown command
    python3 -m loomlab.commands which ARGS...  "HOW WORDS MODULE GATE": how ./lab runs the command,
                                               how many of ARGS name it, its Python module (or -),
                                               whether the doctor's checks gate it (1) or not (0)
"""

from __future__ import annotations

import importlib
import sys
import textwrap
from dataclasses import dataclass


@dataclass(frozen=True)
class Command:
    words: str  # what the user types after ./lab: "bench", "k8s run"
    synopsis: str  # its arguments, as the usage shows them
    summary: str  # what it does, a line or a few
    how: str  # the branch of ./lab's dispatch that runs it
    options: str = ""  # "module:function": the function (of argv) that parses its options
    own_help: bool = False  # the tool's own --help (k6, mvn): ./lab passes it on
    runs: str = ""  # the harness module that runs it (an in-cluster command's), under loomlab
    on_node: bool = False  # it acts on the lab's own node: ./lab runs it with the machinery's node

    @property
    def module(self) -> str:
        """The module ./lab runs, for the in-cluster commands (under loomlab, or the machinery's entry
        that hands the harness's module the lab's node: labmachine.experiments.NAME, which ./lab runs
        as `python -m labmachine.experiments NAME`); else '-'."""
        return (f"labmachine.experiments.{self.runs.rsplit('.', 1)[1]}" if self.on_node else self.runs) or "-"

    @property
    def gated(self) -> bool:
        """Whether ./lab runs the doctor's checks of its branch before it (loomlab.branches): the
        commands that build, install or start something; of the cluster's, `k8s up` alone."""
        return self.how in GATED or self.words == "k8s up"


# The branches whose commands ./lab runs only after the doctor's checks of what they need.
GATED = ("bench", "test", "serve", "startup", "aot", "images", "deploy", "verify")


def _in_cluster(name: str, synopsis: str, summary: str, how: str, runs: str, on_node: bool = False) -> Command:
    """An in-cluster command: its options the function NAME of incluster/cli.py, its module `runs`."""
    return Command(f"k8s {name}", synopsis, summary, how, f"incluster.cli:{name}", runs=runs, on_node=on_node)


COMMANDS: tuple[Command, ...] = (
    Command(
        "doctor",
        "[COMMAND]",
        "what each command needs on this machine, found or missing, with the line that installs it"
        " (every command checks its own first)",
        "doctor",
        "doctor:parse",
    ),
    Command(
        "bench",
        "[options]",
        "the main job: build, database, the load generator, run the comparison, write the report",
        "bench",
        "bench.cli:parse",
    ),
    Command(
        "stock",
        "[--then COMMAND] [--warm-caches]",
        "the README's prerequisite line, doctor and commands in a stock Debian 12 root filesystem on this"
        " machine (root): what a stranger's first hour meets",
        "stock",
        "labmachine.stock:parse",
    ),
    Command(
        "report",
        "DIR [--out OUT]",
        "a run's report.md, report.html and chart again from its results.json alone (a committed run's too)",
        "report",
        "bench.reporting.reportcli:parse",
    ),
    Command(
        "test",
        "[--under-load N] [maven args]",
        "provision (JDK, PostgreSQL + pgvector), then the whole test suite (with N CPU hogs beside it:"
        " the suite must pass on a busy machine)",
        "test",
    ),
    Command(
        "serve",
        "",
        "database + the service on 127.0.0.1:8080, in the foreground (Ctrl-C stops); Quarkus settings as"
        " environment variables apply, e.g. QUARKUS_HTTP_PORT=8081 QUARKUS_THREAD_POOL_MAX_THREADS=50 ./lab serve",
        "serve",
    ),
    Command(
        "db",
        "start|stop|status|env|destroy",
        "the local PostgreSQL 15 + pgvector (QUARKUS_DATASOURCE_JDBC_URL wins)",
        "db",
    ),
    Command("k6", "[k6 args]", "your own k6, from PATH (the lab never installs k6: AGPL-3.0)", "k6", own_help=True),
    Command(
        "k8s up",
        "",
        "a real single-node Kubernetes on this machine (root), with a registry on loopback, built and started",
        "cluster",
    ),
    Command("k8s down", "", "the lab's cluster stopped and the host restored as before up", "cluster"),
    Command("k8s status", "", "whether the lab's cluster is up", "cluster"),
    Command("k8s env", "", "KUBECONFIG of the lab's cluster, for eval", "cluster"),
    Command("k8s registry", "", "the lab's registry, to push to", "cluster"),
    Command("k8s node-images", "", "the images the node's containerd holds", "cluster"),
    Command(
        "k8s images",
        "[--push REGISTRY[/PREFIX]] [NAME]",
        "the images (JVM, JVM + AOT cache, JVM on JDK 21, PostgreSQL + pgvector, loadgen, Prometheus; k6 by"
        " name only, from a k6 of your own), built here with buildah as root, pushed to a registry with their digests",
        "images",
    ),
    _in_cluster(
        "run",
        "[options]",
        "the comparison in any cluster (--kubeconfig, --context, --namespace; default: the lab's own when"
        " up), from a registry (--registry; default: the lab's), loadgen Jobs against the JVM and JVM + AOT"
        " pods, same report as bench",
        "deploy",
        "incluster",
    ),
    _in_cluster(
        "autoscale",
        "[--on cpu|queue|none] [options]",
        "the worker mode held above its thread bound under a CPU autoscaler, the queue autoscaler (KEDA on"
        " Prometheus) or none: what it saw and did, each phase's figures",
        "deploy",
        "incluster.experiments.autoscale",
        on_node=True,
    ),
    _in_cluster(
        "starts",
        "[--rounds N] [--variants jvm,jvm-aot]",
        "fresh pods of each image in rotated rounds: pod seen to container running, Quarkus up, Ready and"
        " the first answer through the Service",
        "deploy",
        "incluster.experiments.starts",
    ),
    _in_cluster(
        "failover",
        "[options]",
        "one of two pods killed under a constant load: what failed, how long",
        "deploy",
        "incluster.experiments.failover",
        on_node=True,
    ),
    _in_cluster(
        "fetch",
        "WORKLOAD [--k6]",
        "the runs' files of a workload's load Job (--k6: of its k6 twin), off its results volume",
        "python",
        "incluster.experiments.fetch",
    ),
    _in_cluster(
        "monitoring",
        "[--job NAME]",
        "the namespace's Prometheus: every pod a target and up, loom-lab's metrics queryable, and with --job"
        " a k6 Job's remote-written samples",
        "python",
        "incluster.experiments.monitoring",
    ),
    _in_cluster(
        "netpol",
        "[--broken DIR]",
        "the NetworkPolicies proven from outside with throwaway pods, each case allowed or refused by the"
        " policy it names",
        "python",
        "incluster.experiments.netpol",
        on_node=True,
    ),
    Command("k8s verify", "", "the manifests checked against schemas and a real API server", "verify"),
    Command("k8s secret", "", "the database Secret's passwords and TLS generated (each kept if present)", "secret"),
    Command("k8s rerun", "WORKLOAD [--k6]", "a finished load Job deleted and re-applied (--k6: its k6 twin)", "rerun"),
    Command(
        "ab",
        "REV [bench options]",
        "another commit's build beside today's in the same interleaved rounds: a column per mode on REV's"
        " jar, each section's knobs table giving it against today's",
        "ab",
    ),
    Command(
        "capacity",
        "[bench options]",
        "each mode's highest open rate within an SLA per workload, and its cost (the bench's capacity profile)",
        "capacity",
        "bench.cli:parse",
    ),
    Command(
        "startup",
        "[--launches N] [--cold] [--variant NAME=FLAGS] [--no-flames]",
        "JVM vs JVM + AOT cache vs native: first request and its phases, RSS, throughput",
        "startup",
        "startup.cli:parse",
    ),
    Command(
        "aot",
        "[maven args]",
        "Quarkus' aot-jar packaging of the service and the minimal application in target/aot, trained by their ITs",
        "aot",
    ),
    Command("native", "[maven args]", "the native build and its ITs, where GraalVM/Mandrel or Docker exists", "native"),
    Command("mvn", "[args]", "./mvnw with the JDK the lab picks", "mvn", own_help=True),
    Command("fmt", "", "format the Java sources (the build checks it)", "fmt"),
)

# The in-cluster commands (./lab k8s NAME) and the module that runs each.
IN_CLUSTER = {c.words.split()[1]: c.runs for c in COMMANDS if c.runs}

HELP_FLAGS = ("-h", "--help")
USAGE = "help"  # `./lab help`: the usage, answered before any command
NOT_HELP = 10  # `help`'s exit status when the arguments ask no help
UNKNOWN = 2


def find(args: list[str]) -> Command | None:
    """The command the arguments name: the longest table entry their first words spell."""
    named = [c for c in COMMANDS if c.words.split() == args[: len(c.words.split())]]
    return max(named, key=lambda c: len(c.words)) if named else None


def entry(c: Command, width: int = 28) -> str:
    """A command's lines in the usage: its words and synopsis, then its summary wrapped beside them."""
    head = f"  ./lab {c.words} {c.synopsis}".rstrip()
    lines = textwrap.wrap(c.summary, 100 - width, break_long_words=False, break_on_hyphens=False)
    pad = " " * width
    if len(head) + 2 <= width:
        return "\n".join([head.ljust(width) + lines[0], *(pad + x for x in lines[1:])])
    return "\n".join([head, *(pad + x for x in lines)])


def usage(group: str = "") -> str:
    chosen = [c for c in COMMANDS if not group or c.words.split()[0] == group]
    head = ["loom-lab's command line: everything from a fresh machine to a report.", ""]
    tail = ["", "Each command picks a JDK >= 21 itself (25 to build) and says which; --help on any command says more."]
    return "\n".join([*head, *(entry(c) for c in chosen), *tail])


def help_for(args: list[str]) -> int:
    """Print the help the arguments ask for: the usage for none or `help`, a command's options (its
    parser) or its entry for -h/--help anywhere after it. NOT_HELP when they ask none."""
    if not args or args[0] in (USAGE, *HELP_FLAGS):
        print(usage())
        return 0
    c = find(args)
    if c is None:
        group = args[0] if any(x.words.startswith(args[0] + " ") for x in COMMANDS) else ""
        print(usage(group), file=sys.stderr)
        if group and len(args) == 1:
            print(f"\nlab: {group} needs one of the commands above", file=sys.stderr)
        else:
            print(f"\nlab: unknown command '{' '.join(args[:2] if group else args[:1])}'", file=sys.stderr)
        return UNKNOWN
    rest = args[len(c.words.split()) :]
    if c.own_help or not any(a in HELP_FLAGS for a in rest):
        return NOT_HELP
    if not c.options:
        print(entry(c))
        return 0
    module, _, function = c.options.partition(":")  # under loomlab, or the machinery's (labmachine.*)
    try:
        name = module if module.startswith("labmachine.") else f"loomlab.{module}"
        getattr(importlib.import_module(name), function)(["--help"])
    except SystemExit as done:  # argparse's --help exits 0
        return int(done.code or 0)
    return 0


def which(args: list[str]) -> str:
    c = find(args)
    if c is None:
        raise SystemExit(f"lab: unknown command '{' '.join(args)}'")
    return f"{c.how} {len(c.words.split())} {c.module} {int(c.gated)}"


def main(argv: list[str]) -> int:
    what, args = argv[0], argv[1:]
    if what == "help":
        return help_for(args)
    if what in ("usage", "which"):
        print(usage() if what == "usage" else which(args))
        return 0
    raise SystemExit("usage: python3 -m loomlab.commands usage|help|which ARGS...")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
