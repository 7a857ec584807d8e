"""The options of the in-cluster commands (`./lab k8s run`, `autoscale`, `failover`, ...), one
function each of the command's name, apart from the commands so that `--help` needs nothing but the
standard library: ./lab prints it before it installs or builds anything. loomlab.commands, the one
table of ./lab's commands, names each function and the module that runs the command."""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

from loomlab import ROOT
from loomlab.bench.planning.lane import VIRTUAL, WORKER
from loomlab.bench.planning.settings import capacity_options, lane_options, round_options
from loomlab.commands import IN_CLUSTER


def module_file(command: str) -> Path:
    """The source file of a command's module (a package: its __init__.py)."""
    path = ROOT / "scripts" / "loomlab" / Path(*IN_CLUSTER[command].split("."))
    return path / "__init__.py" if path.is_dir() else path.with_suffix(".py")


def description(command: str) -> str:
    """A command module's first paragraph, read without importing it (its imports need the venv)."""
    source = module_file(command).read_text()
    return (ast.get_docstring(ast.parse(source)) or "").split("\n\n")[0]


def needs_out(p: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.Namespace:
    if args.out is None and not getattr(args, "plan", False):
        p.error("--out is needed to run (./lab passes it)")
    return args


def parsed(p: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """The command's arguments, with where it runs and what it deploys as its last options (the same
    for every in-cluster command)."""
    p.add_argument(
        "--kubeconfig",
        default=None,
        help="the cluster's kubeconfig (default: the lab's own cluster when it is up, else $KUBECONFIG"
        " or ~/.kube/config)",
    )
    p.add_argument("--context", default=None, help="a context of the kubeconfig (default: its current one)")
    p.add_argument(
        "--namespace", default=None, help="where everything goes; it must exist (default: the context's, else loom-lab)"
    )
    p.add_argument(
        "--registry",
        default=None,
        help="REGISTRY[/PREFIX] the images were pushed to (./lab k8s images --push; ./lab does it first);"
        " the pods run them by digest",
    )
    return p.parse_args(argv)


def run(argv: list[str]) -> argparse.Namespace:
    """Long because it declares every option of `./lab k8s run`, one call each, with its help."""
    p = argparse.ArgumentParser(prog="lab k8s run", description=description("run"))
    lane_options(p, "cluster", "sleep,product", "worker, virtual, virtual-loop, reactive or virtual+rx")
    p.add_argument(
        "--profile",
        choices=["quick", "smoke", "scale", "capacity"],
        default="quick",
        help="quick: warm-up, then interleaved rounds per load; smoke: seconds, one round unless --repeats"
        " says more (CI); capacity: ./lab capacity's search against the pods (--quota-column cpu1=1: a pod of"
        " 1 CPU per mode, searched too), each mode's held rate per pod and the pods a rate needs; scale: how many"
        " worker pods make one virtual pod (sleep and product, worker on 1, 2 and 4 pods, virtual and"
        " reactive on one; the JVM variant)",
    )
    p.add_argument(
        "--variants",
        default="jvm,jvm-aot,native",
        help="service variants: jvm, jvm-aot, native, and jvm21 (the same jar on JDK 21, asked for by name:"
        " ./lab bench --jdk 21,25 is the local comparison) (default: jvm, jvm-aot, native, each whose image exists)",
    )
    p.add_argument(
        "--replicas",
        type=int,
        default=1,
        help="service pods per variant (the Deployments' replicas; the Service spreads the load, each"
        " pod's share read from its own /q/metrics; default 1)",
    )
    round_options(p)
    p.add_argument(
        "--runners",
        type=int,
        default=1,
        help="loadgen runners per run, the pods of an Indexed Job that start together once every one may, each"
        " sending its share of the arrivals, their results merged exactly (default 1)",
    )
    capacity_options(p)
    p.add_argument(
        "--cpu-limit",
        type=float,
        default=None,
        metavar="CPUS",
        help="the service's pods' CPU limit (default: the manifests', 2; 0: none, so no CFS quota, what the"
        " quota costs each mode; e.g. 1: a pod of one core, as the capacity profile's pods per rate ask);"
        " the report states the limits it ran with",
    )
    p.add_argument(
        "--local",
        default=str(ROOT / "target/loom-lab/latest"),
        help="a ./lab bench report to print beside the in-cluster figures",
    )
    args = parsed(p, argv)
    if args.cpu_limit is not None and args.cpu_limit < 0:
        p.error("--cpu-limit: CPUs, 0 or more")
    return needs_out(p, args)


def autoscale(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab k8s autoscale", description=description("autoscale"))
    p.add_argument("--out", help="where the report goes (./lab passes it; needed to run)")
    p.add_argument(
        "--on",
        choices=("cpu", "queue", "none"),
        default="cpu",
        help="the autoscaler: CPU (metrics-server), the worker queue (KEDA on Prometheus), or none (cpu)",
    )
    p.add_argument("--mode", choices=(WORKER, VIRTUAL), default=WORKER, help="the mode under load (worker)")
    p.add_argument(
        "--variant",
        choices=("jvm", "jvm-aot"),
        default="jvm",
        help="the image: the JVM's, or the JVM's with its AOT cache (what a faster start saves under the same"
        " step of load) (jvm)",
    )
    p.add_argument("--fraction", type=float, default=1.5, help="arrivals as a multiple of the worker bound (1.5)")
    p.add_argument("--seconds", type=int, default=240, help="how long the load holds (240)")
    p.add_argument("--period", type=float, default=5, help="seconds between two looks (5)")
    p.add_argument(
        "--sleep-ms",
        type=int,
        default=500,
        help="each request's sleep (500: a bound of 100 req/s on the pool of 50, an arrival rate one load pod"
        " offers with a new connection per request on 2 cores)",
    )
    p.add_argument(
        "--keep-alive",
        action="store_true",
        help="the load keeps its connections (default: a new connection per request, so a new pod gets its share)",
    )
    p.add_argument("--after", type=float, default=360, help="seconds to watch the scale-down once the load stops (360)")
    return needs_out(p, parsed(p, argv))


def starts(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab k8s starts", description=description("starts"))
    p.add_argument("--out", help="where the report goes (./lab passes it; needed to run)")
    p.add_argument("--rounds", type=int, default=5, help="fresh pods per image, one per round (5)")
    p.add_argument(
        "--variants",
        default="jvm,jvm-aot,native",
        help="the images, the first the others are compared with (default: jvm, jvm-aot, native, each whose"
        " image exists)",
    )
    args = needs_out(p, parsed(p, argv))
    if args.rounds < 1:
        p.error("--rounds must be 1 or more")
    return args


def failover(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab k8s failover", description=description("failover"))
    p.add_argument("--out", help="where the report goes (./lab passes it; needed to run)")
    p.add_argument("--rate", type=int, default=100, help="arrivals per second (100)")
    p.add_argument("--seconds", type=int, default=60, help="how long the load holds (60)")
    p.add_argument("--kill-at", type=float, default=20, help="seconds into the load when a pod is killed (20)")
    return needs_out(p, parsed(p, argv))


def fetch(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab k8s fetch", description=description("fetch"))
    p.add_argument("workload", help="the Job's workload: sleep, tasks, product, ... (deploy/k8s/loads/<workload>)")
    p.add_argument("--k6", action="store_true", help="the k6 Job's volume (deploy/k8s/jobs/<workload>) instead")
    p.add_argument("--out", default=None, help="where the files go (default: target/loom-lab/k8s-results/<workload>)")
    return parsed(p, argv)


def monitoring(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab k8s monitoring", description=description("monitoring"))
    p.add_argument("--job", default="", help="a k6 Job whose samples must be in Prometheus (e.g. k6-sleep)")
    return parsed(p, argv)


def netpol(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="lab k8s netpol", description=description("netpol"))
    p.add_argument("--service", default="loom-lab-jvm", help="the service's Service (default: loom-lab-jvm)")
    p.add_argument(
        "--broken",
        default="",
        metavar="DIR",
        help="apply the policies of DIR (e.g. deploy/k8s/testdata/netpol/open-to-every-namespace) in place of"
        " their namesakes: the check must fail; the real policies are put back",
    )
    p.add_argument(
        "--cost",
        action="store_true",
        help="instead of the check, what enforcing costs the A3 answer: rounds of the A3 Job with the lab's policy"
        " engine on and off (the lab's own cluster only)",
    )
    p.add_argument("--rounds", type=int, default=6, help="--cost: rounds per mode (6)")
    p.add_argument("--out", default=None, help="--cost: the report folder (default: target/loom-lab/netpol-<time>)")
    return parsed(p, argv)


def registry_of(argv: list[str]) -> str:
    """The registry a deploying command's arguments name (parsed's --registry), or "": ./lab
    pushes the images there before the command runs."""
    p = argparse.ArgumentParser(add_help=False)
    p.add_argument("--registry", default="")
    return p.parse_known_args(argv)[0].registry


if __name__ == "__main__":
    if sys.argv[1:2] != ["--registry-of"]:
        raise SystemExit(
            "usage: python3 -m loomlab.incluster.cli --registry-of ARGS (./lab's; the commands' options are"
            " read through loomlab.commands)"
        )
    print(registry_of(sys.argv[2:]))  # ./lab: where to push the images first
