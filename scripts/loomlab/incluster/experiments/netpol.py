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
from dataclasses import dataclass
from pathlib import Path

import yaml
from kubernetes.client.exceptions import ApiException
from kubernetes.stream import stream

from loomlab import ROOT, LabError, command, proc
from loomlab import labreport as lr
from loomlab.incluster import cli
from loomlab.incluster.core import pods, target
from loomlab.incluster.experiments import netpolcost
from loomlab.kube import Kube, Target

POLICIES = ROOT / "deploy/k8s/base/networkpolicy.yaml"
PROBE_IMAGE = target.LOADGEN_IMAGE  # the runs' own image: it has Python
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


@dataclass(frozen=True)
class Probe:
    """A throwaway pod: where it runs (the namespace, or the one outside it), its labels, and whether
    it listens on a k6 runner's API port (to be the target of the cases that must not reach one)."""

    name: str
    outside: bool
    labels: dict
    listens: bool = False


@dataclass(frozen=True)
class Case:
    what: str
    probe: Probe
    host: str  # {ns}, {service} and {runner} (the listening probe's pod IP) are filled in
    port: str  # a TCP port, or "dns"
    policies: tuple[str, ...]  # the policies that decide it: the source's egress, the target's ingress
    allowed: bool


OUTSIDE = Probe("netpol-outside", True, {"app.kubernetes.io/name": "netpol-probe"})
# A pod of the namespace that no policy names: default-deny alone decides what it reaches.
BARE = Probe("netpol-bare", False, {"app.kubernetes.io/name": "netpol-probe"})
# A k6 runner: its labels, and k6's REST API port open (a stand-in listener).
K6 = Probe("netpol-k6", False, {"app.kubernetes.io/name": "k6", "app.kubernetes.io/component": "load"}, True)
# A loadgen Job's pod (incluster/core/jobs.on_loadgen): its labels.
LOADGEN = Probe("netpol-loadgen", False, {"app.kubernetes.io/name": "loadgen", "app.kubernetes.io/component": "load"})
STARTER = Probe(
    "netpol-starter", False, {"app.kubernetes.io/name": "k6", "app.kubernetes.io/component": "load-starter"}
)
# The service's labels as the policies select it, and a variant no Deployment selects: the pod is
# neither adopted by a ReplicaSet nor an endpoint of a Service.
AS_SERVICE = Probe(
    "netpol-as-service",
    False,
    {
        "app.kubernetes.io/name": "loom-lab",
        "app.kubernetes.io/component": "service",
        "app.kubernetes.io/variant": "netpol-probe",
    },
)
DB, SVC = "postgres.{ns}.svc.cluster.local", "{service}.{ns}.svc.cluster.local"
PROM, RUNNER = "prometheus.{ns}.svc.cluster.local", "{runner}"
PG_IN, SVC_IN = "postgres-from-service-only", "service-from-namespace-only"
PROM_IN, SVC_OUT = "prometheus-from-namespace-and-keda", "service-to-database-only"
K6_OUT, K6_IN = "k6-to-service-prometheus-and-runners", "k6-api-from-starter-only"
LG_OUT = "loadgen-to-service-only"
# In order: the allowed case to a runner's API waits for its listener before the refused ones run.
CASES = (
    Case("another namespace to the database", OUTSIDE, DB, "5432", (PG_IN,), False),
    Case("another namespace to the service", OUTSIDE, SVC, "8080", (SVC_IN,), False),
    Case("a k6 pod to the database", K6, DB, "5432", (PG_IN, K6_OUT), False),
    Case("a k6 pod to the service", K6, SVC, "8080", (SVC_IN, K6_OUT), True),
    Case("a loadgen pod to the service", LOADGEN, SVC, "8080", (SVC_IN, LG_OUT), True),
    Case("a loadgen pod to the database", LOADGEN, DB, "5432", (PG_IN, LG_OUT), False),
    Case("a loadgen pod to Prometheus", LOADGEN, PROM, "9090", (PROM_IN, LG_OUT), False),
    Case("the service's labels to the database", AS_SERVICE, DB, "5432", (PG_IN, SVC_OUT), True),
    Case("the service's labels to Prometheus", AS_SERVICE, PROM, "9090", (SVC_OUT,), False),
    Case("another namespace to Prometheus", OUTSIDE, PROM, "9090", (PROM_IN,), False),
    Case("a k6 pod to Prometheus (remote write)", K6, PROM, "9090", (PROM_IN, K6_OUT), True),
    Case("a pod no policy names to the service", BARE, SVC, "8080", ("default-deny",), False),
    Case("the runners' starter to a k6 runner's API", STARTER, RUNNER, "6565", (K6_IN, K6_OUT), True),
    Case("another namespace to a k6 runner's API", OUTSIDE, RUNNER, "6565", (K6_IN,), False),
    Case("the service's labels to a k6 runner's API", AS_SERVICE, RUNNER, "6565", (K6_IN, SVC_OUT), False),
    Case("another namespace resolves the database's name", OUTSIDE, DB, "dns", (), True),
    Case("a pod no policy names resolves the database's name", BARE, DB, "dns", ("dns-from-every-pod",), True),
)
# Policies that only allow or only deny: default-deny refuses everything no other policy allows (it
# has no allowed case of its own); DNS is allowed to every pod (its refusals are default-deny's);
# Prometheus' egress is proven by `./lab k8s monitoring` (every target up, discovery through the
# API server), since a probe with its labels would join its Service.
DENY_ONLY = {"default-deny"}
ALLOW_ONLY = {"dns-from-every-pod"}
# The k6 operator's allowance (deploy/k8s/operator) has no case: the operator is not served here;
# `./lab k8s verify` dry-runs it.
PROVEN_ELSEWHERE = {"prometheus-to-targets-and-api-server", "k6-api-from-operator"}
# The stand-in for k6's REST API on a runner probe, then the probe's idle wait.
LISTEN = [
    "sh",
    "-c",
    "python3 -m http.server 6565 --bind 0.0.0.0 >/dev/null 2>&1 & trap 'exit 0' TERM; sleep 600 & wait $!",
]


def policies_in(folder: Path) -> set[str]:
    """The names of every NetworkPolicy in the manifests under `folder` (testdata left out)."""
    names = set()
    for path in folder.rglob("*.yaml"):
        if "testdata" in path.parts:
            continue
        for doc in yaml.safe_load_all(path.read_text()):
            if isinstance(doc, dict) and doc.get("kind") == "NetworkPolicy":
                names.add(doc["metadata"]["name"])
    return names


def uncovered(names: set[str], cases=CASES) -> list[str]:
    """Policies without the cases that prove them: an allowed and a refused one (only the side it has
    for a deny-only or allow-only policy)."""
    missing = []
    for name in sorted(names - PROVEN_ELSEWHERE):
        need = {False} if name in DENY_ONLY else {True} if name in ALLOW_ONLY else {True, False}
        if not need <= {c.allowed for c in cases if name in c.policies}:
            missing.append(name)
    return missing


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


def decide(kube: Kube, case: Case, namespace: str, service: str, runner: str) -> tuple[str, bool]:
    """What the case saw and whether that is what its policies say."""
    host = case.host.format(ns=kube.ns, service=service, runner=runner)
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
        and not any(c["type"] == "Ready" and c["status"] == "True" for c in p["status"].get("conditions", []))
    ]


def running(kube: Kube, name: str):
    return lambda: kube.pod(name)["status"].get("phase") == "Running"


def ready_endpoints(kube: Kube, service: str) -> int:
    """The ready addresses behind a Service (none: a connection to it is dropped by the node, and no
    case through it would say anything about a policy)."""
    try:
        endpoints = kube.core.read_namespaced_endpoints(service, kube.ns)
    except ApiException as e:
        if e.status == 404:  # not deployed (yet): no pod behind it either
            return 0
        raise
    return sum(len(s.addresses or []) for s in endpoints.subsets or [])


def check(kube: Kube, outside: Kube, image: str, service: str) -> tuple[lr.Table, bool]:
    """Every case from its probe pod: the table and whether each saw what its policy says."""
    probes = list({c.probe.name: c.probe for c in CASES}.values())
    for probe in probes:
        on = outside if probe.outside else kube
        on.apply([pods.restricted_pod(probe.name, probe.labels, image, LISTEN if probe.listens else pods.IDLE)])
    try:
        for probe in probes:
            on = outside if probe.outside else kube
            if not proc.wait_until(running(on, probe.name), 180, 1):
                raise LabError(f"the probe pod {probe.name} did not start in {on.ns}")
        runner = kube.pod(K6.name)["status"]["podIP"]
        table = lr.Table(["case", "from", "to", "decided by", "must", "seen", "ok"])
        ok = True
        for case in CASES:
            namespace = outside.ns if case.probe.outside else kube.ns
            seen, right = decide(kube, case, namespace, service, runner)
            ok &= right
            to = K6.name if case.host == RUNNER else case.host.format(ns=kube.ns, service=service).split(".")[0]
            table.add(
                case.what,
                f"{namespace}/{case.probe.name}",
                f"{to}:{case.port}",
                ", ".join(case.policies) or "(DNS, no policy)",
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
            (outside if probe.outside else kube).delete("v1", "Pod", probe.name)


def load_policies(path: Path) -> list[dict]:
    return [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]


def main(argv=None):
    args = cli.netpol(sys.argv[1:] if argv is None else argv)
    if args.cost:
        args.out = args.out or time.strftime("target/loom-lab/netpol-%Y%m%d-%H%M%S")
        netpolcost.cost(args)
        return
    missing = uncovered(policies_in(ROOT / "deploy/k8s"))
    if missing:
        raise LabError(f"policies without an allowed and a refused case: {', '.join(missing)}")
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
        if args.broken:
            broken = Path(args.broken)
            print(f"== {broken}: its policies in place of their namesakes; the check must fail", flush=True)
            kube.apply([d for f in sorted(broken.glob("*.yaml")) for d in load_policies(f)])
        try:
            table, ok = check(kube, outside, image, args.service)
        finally:
            if args.broken:
                kube.apply(load_policies(POLICIES))
    finally:
        outside.delete_namespace()

    print(table.markdown())
    if args.broken:
        print("the broken policies were caught" if not ok else "the broken policies were NOT caught")
        sys.exit(0 if not ok else 1)
    print("every policy decided as it says" if ok else "a policy did not decide as it says (NO above)")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    command(main)
