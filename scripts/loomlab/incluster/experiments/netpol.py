"""`./lab k8s netpol`: the NetworkPolicies of deploy/k8s proven from outside, in both directions, on
the running stack (deploy/k8s/local, or base and an overlay). Throwaway pods open TCP connections
the policies decide: from another namespace, from a pod of the namespace that is not the service,
from a pod with the service's labels, from a loadgen and a k6 pod; and resolve a name through the cluster's DNS.
Each case names the policies that decide it (the source's egress, the target's ingress). A case
that must be refused fails the check the moment it connects; one that must connect may take until
the policy engine has seen the new pod (bounded). The service's and the database's pods must stay
Ready: the node's probes still pass.

`--broken DIR` applies the policies of DIR (deploy/k8s/testdata/netpol/...) in place of their
namesakes, expects the check to fail, and puts the real ones back."""

from __future__ import annotations

import sys
import time
from pathlib import Path

import yaml
from kubernetes.stream import stream

from loomlab import ROOT, LabError, proc
from loomlab.incluster import cli
from loomlab.incluster.core import pods, target
from loomlab.incluster.core.node import LabNode
from loomlab.incluster.experiments import netpolcost
from loomlab.incluster.experiments.netpolcases import (
    CASES,
    LISTENERS,
    Case,
    Probe,
    all_probes,
    policies_by_name,
    uncovered,
)
from loomlab.kube import Kube, Target, answered
from loomlab.labcluster import LOADGEN_IMAGE
from loomlab.podstatus import condition
from loomlab.table import Table

POLICIES = ROOT / "deploy/k8s/base/networkpolicy.yaml"
PROBE_IMAGE = LOADGEN_IMAGE  # the runs' own image: it has Python
# A refused connection fails at once (kube-router rejects); a dropped one at this timeout.
CONNECT_TIMEOUT_S = 3
# How long a case that must connect may wait for the policy engine to admit a new pod.
ADMIT_WITHIN_S = 90
# One attempt, from inside a probe pod: "reached", "refused" or "timeout" (a TCP connection), or the
# address a name resolves to ("dns").
CONNECT = (
    "import socket, sys\nhost, port = sys.argv[1], sys.argv[2]\n"
    "if port == 'dns':\n    print(socket.gethostbyname(host)); sys.exit(0)\ntry:\n"
    f"    socket.create_connection((host, int(port)), timeout={CONNECT_TIMEOUT_S}).close(); print('reached')\n"
    "except socket.timeout:\n    print('timeout')\nexcept OSError:\n    print('refused')\n"
)


def listening_pod(probe: Probe, image: str) -> dict:
    """A probe pod: idle, or a stand-in server on each of its ports (k6's REST API, a server on 53),
    then its idle wait. Below 1024 the pod lowers its own network namespace's bound on unprivileged
    ports (a sysctl Pod Security "restricted" allows): it runs as no root and holds no capability."""
    if not probe.listens:
        return pods.restricted_pod(probe.name, probe.labels, image, pods.IDLE)
    serve = " ".join(f"python3 -m http.server {port} --bind 0.0.0.0 >/dev/null 2>&1 &" for port in probe.listens)
    idle = "trap 'exit 0' TERM; sleep 600 & wait $!"
    pod = pods.restricted_pod(probe.name, probe.labels, image, ["sh", "-c", f"{serve} {idle}"])
    if min(probe.listens) < 1024:
        lower = {"name": "net.ipv4.ip_unprivileged_port_start", "value": str(min(probe.listens))}
        pod["spec"]["securityContext"]["sysctls"] = [lower]
    return pod


def attempt(kube: Kube, namespace: str, pod: str, host: str, port: str) -> str:
    return stream(
        kube.core.connect_get_namespaced_pod_exec,
        pod,
        namespace,
        command=["python3", "-c", CONNECT, host, port],
        stderr=True,
        stdin=False,
        stdout=True,
        tty=False,
        _preload_content=True,
    ).strip()


def decide(kube: Kube, case: Case, namespace: str, service: str, listeners: dict[str, str]) -> tuple[str, bool]:
    """What the case saw and whether that is what its policies say (`listeners`: the listening
    probes' addresses, by their placeholder)."""
    host = case.host.format(ns=kube.ns, service=service, **listeners)
    if case.port == "dns":
        seen = attempt(kube, namespace, case.probe.name, host, "dns")
        return seen, seen.count(".") == 3
    deadline = time.monotonic() + (ADMIT_WITHIN_S if case.allowed else 0)
    while True:
        seen = attempt(kube, namespace, case.probe.name, host, case.port)
        if seen == "reached" or time.monotonic() >= deadline:
            return seen, (seen == "reached") == case.allowed
        time.sleep(2)


def node_probes_pass(kube: Kube) -> list[str]:
    """The service's and the database's pods not Ready (the kubelet's probes reach them from the node)."""
    watched = kube.pods("app.kubernetes.io/component in (service,database)")
    return [
        p["metadata"]["name"]
        for p in watched
        if not p["metadata"]["labels"].get("app.kubernetes.io/variant", "").startswith("netpol")
        and not condition(p, "Ready")
    ]


def running(kube: Kube, name: str):
    return lambda: kube.pod(name)["status"].get("phase") == "Running"


def ready_endpoints(kube: Kube, service: str) -> int:
    """The ready addresses behind a Service (none: a connection to it is dropped by the node, and no
    case through it would say anything about a policy)."""
    with answered(404):  # not deployed (yet): no pod behind it either
        endpoints = kube.core.read_namespaced_endpoints(service, kube.ns)
        return sum(len(s.addresses or []) for s in endpoints.subsets or [])
    return 0


def check(kube: Kube, outside: Kube, image: str, service: str) -> tuple[Table, bool]:
    """Every case from its probe pod: the table and whether each saw what its policy says."""
    probes = all_probes()

    def home(probe: Probe) -> Kube:
        return outside if probe.outside else kube

    for probe in probes:
        home(probe).apply([listening_pod(probe, image)])
    try:
        for probe in probes:
            if not proc.wait_until(running(home(probe), probe.name), 180, 1):
                raise LabError(f"the probe pod {probe.name} did not start in {home(probe).ns}")
        listeners = {key: home(p).pod(p.name)["status"]["podIP"] for key, p in LISTENERS.items()}
        names = {"{" + key + "}": f"{home(p).ns}/{p.name}" for key, p in LISTENERS.items()}
        table = Table(["case", "from", "to", "decided by", "must", "seen", "ok"])
        ok = True
        for case in CASES:
            namespace = home(case.probe).ns
            seen, right = decide(kube, case, namespace, service, listeners)
            ok &= right
            to = names.get(case.host) or case.host.format(ns=kube.ns, service=service).split(".")[0]
            table.add(
                case.what,
                f"{namespace}/{case.probe.name}",
                f"{to}:{case.port}",
                ", ".join(case.policies) or "(no policy)",
                "connect" if case.allowed else "be refused",
                seen,
                "yes" if right else "NO",
            )
        not_ready = node_probes_pass(kube)
        table.add(
            "the node's probes",
            "the node",
            "service and database pods",
            "",
            "pass",
            ", ".join(not_ready) or "all Ready",
            "NO" if not_ready else "yes",
        )
        return table, ok and not not_ready
    finally:
        for probe in probes:
            home(probe).delete("v1", "Pod", probe.name)


def load_policies(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]


def broken_policies(folder: str, lab: dict[str, dict]) -> list[dict]:
    """The policies of a testdata folder, each in place of its namesake among the lab's `lab`."""
    found = [d for f in sorted(Path(folder).glob("*.yaml")) for d in load_policies(f)]
    docs = [d for d in found if d.get("kind") == "NetworkPolicy"]
    if not docs:
        raise LabError(f"{folder}: no policy in its *.yaml files (a folder of deploy/k8s/testdata/netpol?)")
    unknown = {d["metadata"]["name"] for d in docs} - lab.keys()
    if unknown:
        raise LabError(f"{folder}: no policy of deploy/k8s is named {', '.join(sorted(unknown))}")
    return docs


def main(argv, node: LabNode | None = None):
    args = cli.netpol(argv)
    if args.cost:
        args.out = args.out or time.strftime("target/loom-lab/netpol-%Y%m%d-%H%M%S")
        netpolcost.cost(args, node)
        return
    lab = policies_by_name(ROOT / "deploy/k8s")
    missing = uncovered(set(lab))
    if missing:
        raise LabError(f"policies without an allowed and a refused case: {', '.join(missing)}")
    broken = broken_policies(args.broken, lab) if args.broken else []
    kube = target.connect(args)
    if not ready_endpoints(kube, args.service):
        raise LabError(
            f"{args.service} has no ready pod (not deployed yet, or scaled to 0 after a run?): deploy it (./lab k8s"
            " run) or scale it to 1 first; the cases through it would be decided by the missing endpoint, not by a"
            " policy"
        )
    outside = Kube(Target(kube.target.kubeconfig, kube.target.context, f"{kube.ns}-outside"))
    image = target.pushed(args.registry).get(PROBE_IMAGE, PROBE_IMAGE)
    outside.wait_namespace_gone()  # a run just before may still be deleting it
    outside.apply([{"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": outside.ns}}])
    try:
        if broken:
            print(f"== {args.broken}: its policies in place of their namesakes; the check must fail", flush=True)
            kube.apply(broken)
        try:
            table, ok = check(kube, outside, image, args.service)
        finally:
            if broken:
                kube.apply([lab[d["metadata"]["name"]] for d in broken])
    finally:
        outside.delete_namespace()

    print(table.markdown())
    if args.broken:
        print("the broken policies were caught" if not ok else "the broken policies were NOT caught")
        sys.exit(0 if not ok else 1)
    print("every policy decided as it says" if ok else "a policy did not decide as it says (NO above)")
    sys.exit(0 if ok else 1)
