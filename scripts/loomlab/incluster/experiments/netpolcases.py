"""The cases `./lab k8s netpol` tries: the throwaway probe pods (where each runs and how it is
labelled), each connection with the policies that decide it and whether they allow it, and which
policies of deploy/k8s those cases leave unproven."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml


@dataclass(frozen=True)
class Probe:
    """A throwaway pod: where it runs (the namespace, or the one outside it), its labels, and the TCP
    ports it listens on, if any (to be the target of cases: a k6 runner's API, a server on 53)."""

    name: str
    outside: bool
    labels: dict
    listens: tuple[int, ...] = ()


@dataclass(frozen=True)
class Case:
    what: str
    probe: Probe
    host: str  # {ns}, {service}, {runner} and {elsewhere} (the listening probes' pod IPs) are filled in
    port: str  # a TCP port, or "dns"
    policies: tuple[str, ...]  # the policies that decide it: the source's egress, the target's ingress
    allowed: bool


OUTSIDE = Probe("netpol-outside", True, {"app.kubernetes.io/name": "netpol-probe"})
# A pod of the namespace that no policy names: default-deny alone decides what it reaches.
BARE = Probe("netpol-bare", False, {"app.kubernetes.io/name": "netpol-probe"})
# A k6 runner: its labels, and k6's REST API port open (a stand-in listener).
K6 = Probe("netpol-k6", False, {"app.kubernetes.io/name": "k6", "app.kubernetes.io/component": "load"}, (6565,))
# A server of another namespace on 53 that is not the cluster's DNS, and on the API server's port
# that is not the API server: where a way out to "any address on" that port would let a pod send
# anything.
ELSEWHERE_SERVER = Probe("netpol-elsewhere", True, {"app.kubernetes.io/name": "netpol-probe"}, (53, 6443))
# Prometheus, as the policies select it (the Service also selects a label this one lacks).
AS_PROMETHEUS = Probe(
    "netpol-as-prometheus", False, {"app.kubernetes.io/name": "prometheus", "app.kubernetes.io/component": "monitoring"}
)
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
# The schema's migration Job's pods, as the policies select them.
AS_MIGRATION = Probe(
    "netpol-as-migration",
    False,
    {
        "app.kubernetes.io/name": "loom-lab",
        "app.kubernetes.io/component": "migration",
        "app.kubernetes.io/variant": "netpol-probe",
    },
)
DB, SVC = "postgres.{ns}.svc.cluster.local", "{service}.{ns}.svc.cluster.local"
PROM, API = "prometheus.{ns}.svc.cluster.local", "kubernetes.default.svc.cluster.local"
# The probes that listen, by the name a case's host gives each (filled in with its pod's address).
LISTENERS = {"runner": K6, "elsewhere": ELSEWHERE_SERVER}
RUNNER, ELSEWHERE = "{runner}", "{elsewhere}"
PG_IN, SVC_IN = "postgres-from-service-only", "service-from-namespace-only"
PROM_IN, SVC_OUT = "prometheus-from-namespace-and-keda", "service-to-database-only"
K6_OUT, K6_IN = "k6-to-service-prometheus-and-runners", "k6-api-from-starter-only"
LG_OUT = "loadgen-to-service-only"
PROM_OUT = ("prometheus-to-targets", "prometheus-to-the-api-server")  # the second: deploy/k8s/lab-node
DNS_OUT = ("dns-from-every-pod", "dns-to-the-node")  # kube-dns' pods; the lab's node (deploy/k8s/lab-node)
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
    Case("the migration's labels to the database", AS_MIGRATION, DB, "5432", (PG_IN, SVC_OUT), True),
    Case("the migration's labels to the service", AS_MIGRATION, SVC, "8080", (SVC_OUT,), False),
    Case("another namespace to Prometheus", OUTSIDE, PROM, "9090", (PROM_IN,), False),
    Case("a k6 pod to Prometheus (remote write)", K6, PROM, "9090", (PROM_IN, K6_OUT), True),
    Case("Prometheus' labels to the service", AS_PROMETHEUS, SVC, "8080", (SVC_IN, PROM_OUT[0]), True),
    Case("Prometheus' labels to the database", AS_PROMETHEUS, DB, "5432", (PG_IN, *PROM_OUT), False),
    Case("Prometheus' labels to the API server", AS_PROMETHEUS, API, "443", (PROM_OUT[1],), True),
    Case("a pod no policy names to the service", BARE, SVC, "8080", ("default-deny",), False),
    Case("the runners' starter to a k6 runner's API", STARTER, RUNNER, "6565", (K6_IN, K6_OUT), True),
    Case("another namespace to a k6 runner's API", OUTSIDE, RUNNER, "6565", (K6_IN,), False),
    Case("the service's labels to a k6 runner's API", AS_SERVICE, RUNNER, "6565", (K6_IN, SVC_OUT), False),
    Case("another namespace resolves the database's name", OUTSIDE, DB, "dns", (), True),
    Case("a pod no policy names resolves the database's name", BARE, DB, "dns", DNS_OUT, True),
    # In order: the servers on 53 and 6443 are known up (reached from their own side) before the refusals.
    Case("another namespace to its own server on 53", OUTSIDE, ELSEWHERE, "53", (), True),
    Case("another namespace to its own server on 6443", OUTSIDE, ELSEWHERE, "6443", (), True),
    Case("a pod no policy names to a server on 53 that is not the cluster's DNS", BARE, ELSEWHERE, "53", DNS_OUT,
         False),
    Case("Prometheus' labels to a server on 6443 that is not the API server", AS_PROMETHEUS, ELSEWHERE, "6443",
         PROM_OUT, False),
)  # fmt: skip
# Policies that only deny: default-deny refuses everything no other policy allows (it has no allowed
# case of its own).
DENY_ONLY = {"default-deny"}
# The k6 operator's allowance (deploy/k8s/operator) has no case: the operator is not served here;
# `./lab k8s verify` dry-runs it.
PROVEN_ELSEWHERE = {"k6-api-from-operator"}


def all_probes(cases=CASES) -> list[Probe]:
    """Every probe pod a check starts: each case's source, and each listener a case connects to
    (the server on 53 is a target only)."""
    return list({p.name: p for p in [c.probe for c in cases] + list(LISTENERS.values())}.values())


def policy_docs(folder: Path) -> list[dict]:
    """Every NetworkPolicy in the manifests under `folder` (testdata left out)."""
    docs = []
    for path in sorted(folder.rglob("*.yaml")):
        if "testdata" not in path.parts:
            docs += [d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict)]
    return [d for d in docs if d.get("kind") == "NetworkPolicy"]


def policies_by_name(folder: Path) -> dict[str, dict]:
    """Every NetworkPolicy under `folder` (testdata left out) by its name, which is its one place."""
    found: dict[str, dict] = {}
    for doc in policy_docs(folder):
        name = doc["metadata"]["name"]
        if name in found:
            raise ValueError(f"{folder}: two NetworkPolicies are named {name}")
        found[name] = doc
    return found


def uncovered(names: set[str], cases=CASES) -> list[str]:
    """Policies without the cases that prove them: an allowed and a refused one (a refused one only,
    for a deny-only policy)."""
    missing = []
    for name in sorted(names - PROVEN_ELSEWHERE):
        need = {False} if name in DENY_ONLY else {True, False}
        if not need <= {c.allowed for c in cases if name in c.policies}:
            missing.append(name)
    return missing
