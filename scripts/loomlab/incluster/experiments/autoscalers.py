"""What `./lab k8s autoscale --on` puts in front of the variant's Deployment, each as its kustomize
component renders it: `cpu`, the HorizontalPodAutoscaler of overlays/jvm-autoscaled (CPU from
metrics-server); `queue`, the KEDA ScaledObject of overlays/jvm-queue-autoscaled (the worker pool's
demand from Prometheus), whose HorizontalPodAutoscaler KEDA makes; `none`, one pod and nothing
else. Each reads back what its autoscaler saw and decided."""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from datetime import datetime

from kubernetes.dynamic.exceptions import ResourceNotFoundError

from loomlab.incluster.core import services
from loomlab.incluster.core.plan import VARIANTS
from loomlab.kube import Kube, answered

OVERLAYS = {"cpu": "deploy/k8s/overlays/jvm-autoscaled", "queue": "deploy/k8s/overlays/jvm-queue-autoscaled"}
KINDS = {"HorizontalPodAutoscaler": "autoscaling/v2", "ScaledObject": "keda.sh/v1alpha1"}


def quantity(q: str | None) -> float:
    """A Kubernetes quantity ("250m", "1", "1500u", "12345n", "48500m") as a number."""
    if not q:
        return math.nan
    units = {"n": 1e-9, "u": 1e-6, "m": 1e-3, "k": 1e3}
    return float(q[:-1]) * units[q[-1]] if q[-1] in units else float(q)


def clear(kube: Kube, images: dict[str, str], variant: str = "jvm"):
    """Every autoscaler these components make for the variant's Deployment, deleted: two on one
    Deployment (a run stopped before its clean-up) would each refuse to act ("AmbiguousSelector")."""
    for on in OVERLAYS:
        with contextlib.suppress(ResourceNotFoundError):  # KEDA's ScaledObject is not served: there is none
            Autoscaler.render(on, images, kube.ns, variant).delete(kube)


@dataclass
class Autoscaler:
    on: str
    doc: dict | None  # the HorizontalPodAutoscaler or ScaledObject applied; None for "none"

    @classmethod
    def render(cls, on: str, images: dict[str, str], namespace: str, variant: str = "jvm") -> Autoscaler:
        """The component's autoscaler as its overlay renders it for the JVM variant, retargeted to
        `variant`'s Deployment (and, KEDA's query, to its pods) and to `namespace`."""
        if on == "none":
            return cls(on, None)
        kind = "HorizontalPodAutoscaler" if on == "cpu" else "ScaledObject"
        doc = next(d for d in services.render(OVERLAYS[on], images) if d["kind"] == kind)
        if variant != "jvm":
            name = VARIANTS[variant].name
            doc["metadata"]["name"] = doc["spec"]["scaleTargetRef"]["name"] = name
        # KEDA's query and Prometheus' address name the variant and namespace the component was written for.
        for trigger in doc["spec"].get("triggers", []):
            meta = trigger["metadata"]
            meta["query"] = meta["query"].replace('variant="jvm"', f'variant="{variant}"')
            meta["query"] = meta["query"].replace('namespace="loom-lab"', f'namespace="{namespace}"')
            meta["serverAddress"] = meta["serverAddress"].replace(".loom-lab.", f".{namespace}.")
        return cls(on, doc)

    @property
    def hpa(self) -> str | None:
        """The HorizontalPodAutoscaler that acts: the component's own, or the one KEDA makes."""
        if self.doc is None:
            return None
        name = self.doc["metadata"]["name"]
        return name if self.doc["kind"] == "HorizontalPodAutoscaler" else f"keda-hpa-{name}"

    def describe(self) -> str:
        if self.doc is None:
            return "no autoscaler: one pod"
        spec = self.doc["spec"]
        if self.on == "cpu":
            return (
                f"{OVERLAYS['cpu']}: {spec['minReplicas']}-{spec['maxReplicas']} pods,"
                f" CPU target {spec['metrics'][0]['resource']['target']}, from metrics-server"
            )
        trigger = spec["triggers"][0]
        return (
            f"{OVERLAYS['queue']}: KEDA, {spec['minReplicaCount']}-{spec['maxReplicaCount']} pods, polling Prometheus"
            f" every {spec['pollingInterval']} s for `{' '.join(trigger['metadata']['query'].split())}`,"
            f" {trigger['metricType']} target {trigger['metadata']['threshold']} per pod"
        )

    def apply(self, kube: Kube):
        if self.doc is not None:
            kube.apply([self.doc])

    def delete(self, kube: Kube):
        if self.doc is not None:
            kube.delete(KINDS[self.doc["kind"]], self.doc["kind"], self.doc["metadata"]["name"])

    def status(self, kube: Kube) -> dict:
        """What the acting HorizontalPodAutoscaler saw (its metric per pod against its target) and
        decided (current and desired replicas), and its conditions; empty before it exists."""
        if self.hpa is None:
            return {}
        with answered(404):
            hpa = kube.json(kube.ns_path(f"horizontalpodautoscalers/{self.hpa}", "apis/autoscaling/v2"), 5)
            status, spec_metric = hpa.get("status", {}), hpa["spec"]["metrics"][0]
            kind = spec_metric["type"].lower()  # "resource" or "external"
            current: dict = next((m[kind]["current"] for m in status.get("currentMetrics") or [] if m.get(kind)), {})
            return {
                "replicas": status.get("currentReplicas"),
                "desired": status.get("desiredReplicas"),
                "seen": quantity(current.get("averageValue")),
                "target": spec_metric[kind]["target"],
                "conditions": {
                    c["type"]: f"{c['status']} {c.get('reason', '')}: {c.get('message', '')}"
                    for c in status.get("conditions", [])
                },
            }
        return {}  # KEDA has not made it yet

    def events(self, kube: Kube, since: float) -> list[str]:
        """The events of the acting autoscaler (and of KEDA's ScaledObject) since a Unix time, one
        line each, in order (an earlier run's autoscaler of the same name left its own)."""
        lines = []
        names = {self.hpa, self.doc["metadata"]["name"] if self.doc else None} - {None}
        for e in kube.json(kube.ns_path("events"), 5)["items"]:
            involved = e["involvedObject"]
            when = e.get("lastTimestamp") or e.get("eventTime") or ""
            at = datetime.fromisoformat(when.replace("Z", "+00:00")).timestamp() if when else 0.0
            if involved.get("kind") in KINDS and involved.get("name") in names and at >= since - 1:
                lines.append(f"{when}: {involved['kind']}: {e['reason']}: {e['message']}")
        return sorted(lines)
