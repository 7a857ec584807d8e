"""What stage 5 (access.py) asks the API server as the runner: the lab's own objects, each to be
accepted, and what the runner must not make of them, each to be refused."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Callable
from dataclasses import dataclass

from loomlab.labcluster import LOADGEN_IMAGE

NAMESPACE = "loom-lab"


@dataclass(frozen=True)
class Case:
    name: str
    doc: dict
    allowed: bool


def pod(
    name: str,
    env: list[dict] | None = None,
    volumes: list[dict] | None = None,
    image: str = LOADGEN_IMAGE,
    **more: object,
) -> dict:
    """A pod Pod Security "restricted" admits, with `env`, `volumes`, `image` and the fields `more`
    of the case's."""
    container: dict = {
        "name": "main",
        "image": image,
        "securityContext": {
            "allowPrivilegeEscalation": False,
            "runAsNonRoot": True,
            "capabilities": {"drop": ["ALL"]},
            "seccompProfile": {"type": "RuntimeDefault"},
        },
        "env": env or [],
    }
    spec = {"automountServiceAccountToken": False, "containers": [container], "volumes": volumes or []} | more
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": NAMESPACE}, "spec": spec}


CLAIM = {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}


def claim(name: str) -> dict:
    return {"name": "v", "persistentVolumeClaim": {"claimName": name}}


def volume_claim(name: str, spec: dict) -> dict:
    return {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": name, "namespace": NAMESPACE},
            "spec": CLAIM | spec}  # fmt: skip


def secret_env(secret: str, key: str = "password") -> list[dict]:
    return [{"name": "X", "valueFrom": {"secretKeyRef": {"name": secret, "key": key}}}]


def secret(name: str, kind: str = "Opaque", annotations: dict | None = None) -> dict:
    meta = {"name": name, "namespace": NAMESPACE, "annotations": annotations or {}}
    return {"apiVersion": "v1", "kind": "Secret", "metadata": meta, "type": kind, "stringData": {"password": "x"}}


def first_container(workload: dict) -> dict:
    container: dict = workload["spec"]["template"]["spec"]["containers"][0]
    return container


def edited(doc: dict, change: Callable[[dict], object]) -> dict:
    """A copy of `doc` with `change` made to it (`doc` itself left as it is)."""
    changed = copy.deepcopy(doc)
    change(changed)
    return changed


def with_secret(workload: dict, name: str, key: str = "password") -> dict:
    """The lab's own workload reading key `key` of Secret `name` in its first container."""
    return edited(workload, lambda w: first_container(w).setdefault("env", []).extend(secret_env(name, key)))


def with_secret_file(workload: dict, key: str | None) -> dict:
    """The lab's own workload with its credentials' volume (named db-credentials) holding key `key`
    too (None: the whole Secret, every key)."""
    changed = copy.deepcopy(workload)
    volumes = changed["spec"]["template"]["spec"]["volumes"]
    (volume,) = [v for v in volumes if v["name"] == "db-credentials" and "secret" in v]
    if key is None:
        del volume["secret"]["items"]
    else:
        volume["secret"]["items"].append({"key": key, "path": key})
    return changed


def on_image(workload: dict, image: str) -> dict:
    """The lab's own workload with its first container on another image."""
    return edited(workload, lambda w: first_container(w).update(image=image))


def tokened(workload: dict) -> dict:
    """The workload without `automountServiceAccountToken: false` (its account's token mounted)."""
    changed = copy.deepcopy(workload)
    spec = changed["spec"] if workload["kind"] == "Pod" else changed["spec"]["template"]["spec"]
    del spec["automountServiceAccountToken"]
    return changed


def templated(workload: dict, **more: object) -> dict:
    """The workload with the fields `more` in its pods' template."""
    return edited(workload, lambda w: w["spec"]["template"]["spec"].update(more))


def renamed(workload: dict, name: str) -> dict:
    return edited(workload, lambda w: w["metadata"].update(name=name))


def relabelled(job: dict, component: str) -> dict:
    """The Job as another component's (its pods' labels say so)."""
    changed = copy.deepcopy(job)
    changed["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"] = component
    return changed


def policy(name: str, ingress: list[dict] | None = None, egress: list[dict] | None = None) -> dict:
    """A NetworkPolicy for every pod of the namespace with the case's rules."""
    spec: dict = {"podSelector": {}, "policyTypes": ["Ingress", "Egress"]}
    spec |= {"ingress": ingress} if ingress is not None else {}
    spec |= {"egress": egress} if egress is not None else {}
    return {"apiVersion": "networking.k8s.io/v1", "kind": "NetworkPolicy",
            "metadata": {"name": name, "namespace": NAMESPACE}, "spec": spec}  # fmt: skip


HTTPS = [{"protocol": "TCP", "port": 443}]
DNS = [{"protocol": "UDP", "port": 53}, {"protocol": "TCP", "port": 53}]
KEDA = {"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "keda"}},
        "podSelector": {"matchLabels": {"app": "keda-operator"}}}  # fmt: skip


def policy_cases(lab: list[dict]) -> list[Case]:
    """Each of the lab's NetworkPolicies, and what the runner must not make of them."""
    own = [Case(f"the NetworkPolicy {d['metadata']['name']}", d, True) for d in lab if d["kind"] == "NetworkPolicy"]
    pods_of_another_namespace: dict = {"namespaceSelector": {}, "podSelector": {}}
    some_pods = {"spec": {"podSelector": {"matchLabels": {"a": "b"}}, "policyTypes": ["Ingress"]}}
    every_port: list[dict] = [{"to": [{"podSelector": {}}]}]
    return own + [
        Case("default-deny letting every pod out", policy("default-deny", egress=[{}]), False),
        Case("default-deny for some pods only", policy("default-deny") | some_pods, False),
        Case("a policy opening every port to the namespace's pods", policy("wide", egress=every_port), False),
        Case("a policy letting pods out to any address on 443", policy("out", egress=[{"ports": HTTPS}]), False),
        Case("a policy letting pods out to any address on 53", policy("out", egress=[{"ports": DNS}]), False),
        Case("a policy letting pods out on 53 to another namespace's pods",
             policy("out", egress=[{"to": [pods_of_another_namespace], "ports": DNS}]), False),
        Case("a policy letting pods out to an address block",
             policy("out", egress=[{"to": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": HTTPS}]), False),
        Case("a policy letting pods out to another namespace",
             policy("out", egress=[{"to": [pods_of_another_namespace], "ports": HTTPS}]), False),
        Case("a policy letting an address block in",
             policy("in", ingress=[{"from": [{"ipBlock": {"cidr": "0.0.0.0/0"}}], "ports": HTTPS}]), False),
        Case("a policy letting anything in on a port", policy("in", ingress=[{"ports": HTTPS}]), False),
        Case("a policy letting every namespace in on a port it does not number",
             policy("in", ingress=[{"from": [{"namespaceSelector": {}}], "ports": [{"protocol": "TCP"}]}]), False),
        Case("a policy letting another namespace's pods in",
             policy("in", ingress=[{"from": [pods_of_another_namespace], "ports": HTTPS}]), False),
        Case("a policy opening a range of ports", policy("in", ingress=[{"from": [{"podSelector": {}}],
             "ports": [{"protocol": "TCP", "port": 8000, "endPort": 9000}]}]), False),
        Case("a policy opening a port by its name", policy("in", ingress=[{"from": [{"podSelector": {}}],
             "ports": [{"protocol": "TCP", "port": "http"}]}]), False),
        Case("a policy letting KEDA's operator in", policy("in", ingress=[{"from": [KEDA], "ports": HTTPS}]), True),
        Case("a policy letting in KEDA's operator's label from any namespace",
             policy("in", ingress=[{"from": [KEDA | {"namespaceSelector": {}}], "ports": HTTPS}]), False),
    ]  # fmt: skip


def by_digest(image: str) -> str:
    """An image by a digest of its own (as a push records it: the name, no tag, @sha256:...)."""
    return image.rsplit(":", 1)[0] + "@sha256:" + hashlib.sha256(image.encode()).hexdigest()


def pinned(lab: list[dict], access: list[dict]) -> tuple[list[dict], list[dict]]:
    """The lab's workloads on their images by digest, as a run deploys them, and deploy/k8s/access
    with those images pinned (the admin's scripts/k8s/pin-images.sh)."""
    lab, access = copy.deepcopy(lab), copy.deepcopy(access)
    images = set()
    for doc in lab:
        for c in doc.get("spec", {}).get("template", {}).get("spec", {}).get("containers", []):
            c["image"] = by_digest(c["image"])
            images.add(c["image"])
    (registries,) = [d for d in access if d["kind"] == "ConfigMap" and d["metadata"]["name"] == "loom-lab-registries"]
    registries["data"]["images"] = " ".join(sorted(images))
    return lab, access


def credential_cases(deployment: dict, statefulset: dict, migration: dict) -> list[Case]:
    """Who reads which key of db-credentials: the lab's three readers, and what the runner must not
    make of them (another key, the environment, another name, another image, another label)."""
    deployment_image, statefulset_image = (first_container(d)["image"] for d in (deployment, statefulset))
    return [
        Case("the service's Deployment (reads db-credentials)", deployment, True),
        Case("the database's StatefulSet (reads db-credentials)", statefulset, True),
        Case("the schema's migration Job (reads the owner's keys)", migration, True),
        Case("the Deployment reading another Secret", with_secret(deployment, "other", "username"), False),
        Case("the Deployment reading the schema owner's password",
             with_secret(deployment, "db-credentials", "owner-password"), False),
        Case("the migration Job reading the superuser's password",
             with_secret(migration, "db-credentials", "admin-password"), False),
        Case("the Deployment reading its own password from its environment",
             with_secret(deployment, "db-credentials", "password"), False),
        Case("the Deployment mounting the schema owner's password",
             with_secret_file(deployment, "owner-password"), False),
        Case("the Deployment mounting every key of db-credentials", with_secret_file(deployment, None), False),
        Case("the Deployment mounting the database's TLS key", with_secret_file(deployment, "tls.key"), False),
        Case("the migration Job mounting the superuser's password",
             with_secret_file(migration, "admin-password"), False),
        Case("a StatefulSet of another name mounting the database's keys", renamed(statefulset, "x"), False),
        Case("the database's StatefulSet on the service's image", on_image(statefulset, deployment_image), False),
        Case("the migration Job under another name", renamed(migration, "x"), False),
        Case("the migration Job on the database's image", on_image(migration, statefulset_image), False),
        Case("the database's StatefulSet on its image by tag, not pinned",
             on_image(statefulset, statefulset_image.split("@")[0] + ":15"), False),
        Case("the service's Deployment on a digest the admin did not pin",
             on_image(deployment, by_digest(deployment_image.split("@")[0] + ":0.0.9")), False),
        Case("a Deployment of another name mounting the service's keys", renamed(deployment, "x"), False),
        Case("a load Job reading the schema owner's password", relabelled(migration, "load"), False),
    ]  # fmt: skip


def cases(lab: list[dict]) -> list[Case]:
    """The lab's own workloads and Service (from deploy/k8s/base and an overlay), and what the
    runner must not make of them."""
    deployment = next(d for d in lab if d["kind"] == "Deployment")
    statefulset = next(d for d in lab if d["kind"] == "StatefulSet")
    migration = next(d for d in lab if d["kind"] == "Job")
    service = next(d for d in lab if d["kind"] == "Service")
    exposed = edited(service, lambda s: s["spec"].update(externalIPs=["203.0.113.7"]))
    account = {"kubernetes.io/service-account.name": "default"}
    token = secret("db-credentials", "kubernetes.io/service-account-token", account)
    return [
        *credential_cases(deployment, statefulset, migration),
        Case("a Service of the lab", service, True),
        Case("the Secret db-credentials", secret("db-credentials"), True),
        Case("a pod of its own, reading no Secret", pod("reader"), True),
        Case("a pod of its own leaving unsaid whether it mounts a token", tokened(pod("reader")), False),
        Case("the Deployment leaving unsaid whether its pods mount a token", tokened(deployment), False),
        Case("a pod of its own reading db-credentials", pod("thief", env=secret_env("db-credentials")), False),
        Case("a pod of its own mounting a Secret", pod("thief", volumes=[{"name": "s", "secret": {"secretName": "x"}}]),
             False),
        Case("a service-account token Secret", token, False),
        Case("a Secret of another name", secret("other"), False),
        Case("a Service with externalIPs", exposed, False),
        Case("a pod of an image of another registry", pod("stranger", image="registry.example.com/x:1"), False),
        Case("a pod of an image whose name only begins as the lab's registry",
             pod("stranger", image="127.0.0.1:5000/loom-lab-x/loadgen:0.1.0"), False),
        Case("the migration Job on an image of another registry",
             on_image(migration, "registry.example.com/loom-lab/loom-lab-jvm:0.1.0"), False),
        Case("a pod of its own on a node it names", pod("placed", nodeName="loom-lab-node"), False),
        Case("a pod of its own tolerating every taint", pod("placed", tolerations=[{"operator": "Exists"}]), False),
        Case("a pod of its own of a priority class", pod("placed", priorityClassName="system-node-critical"), False),
        Case("the Deployment's pods of a priority class",
             templated(deployment, priorityClassName="system-cluster-critical"), False),
        Case("the database's pods tolerating every taint", templated(statefulset, tolerations=[{"operator": "Exists"}]),
             False),
        Case("a pod of its own mounting the database's data claim", pod("x", volumes=[claim("data-postgres-0")]),
             False),
        Case("a pod of its own mounting a results claim", pod("x", volumes=[claim("loadgen-results-sleep")]), True),
        Case("a pod of its own with an ephemeral volume",
             pod("thief", volumes=[{"name": "v", "ephemeral": {"volumeClaimTemplate": {"spec": CLAIM}}}]), False),
        Case("a claim of its own", volume_claim("loadgen-results-x", {}), True),
        Case("a claim binding a volume it names", volume_claim("x", {"volumeName": "someone-elses"}), False),
        Case("the database's data claim made first, open to every pod of its node",
             volume_claim("data-postgres-0", {}), False),
        Case("a claim filled from another claim",
             volume_claim("x", {"dataSource": {"kind": "PersistentVolumeClaim", "name": "data-postgres-0"}}), False),
        *policy_cases(lab),
        *scaler_cases(next(d for d in lab if d["kind"] == "ScaledObject")),
    ]  # fmt: skip


def scaler_cases(scaler: dict) -> list[Case]:
    """The lab's queue autoscaler, and what the runner must not make of a ScaledObject: a trigger
    KEDA's operator would fetch elsewhere, or send a credential to."""

    def with_trigger(**trigger: object) -> dict:
        return edited(scaler, lambda s: s["spec"]["triggers"][0].update(trigger))

    other = scaler["spec"]["triggers"][0]["metadata"] | {"serverAddress": "http://prometheus.team-y.svc:9090"}
    return [
        Case("the lab's queue autoscaler (a ScaledObject)", scaler, True),
        Case("a ScaledObject fetching any URL", with_trigger(type="metrics-api", metadata={"url": "http://x/"}), False),
        Case("a ScaledObject asking another namespace's Prometheus", with_trigger(metadata=other), False),
        Case("a ScaledObject sending a credential",
             with_trigger(authenticationRef={"name": "theirs", "kind": "ClusterTriggerAuthentication"}), False),
    ]  # fmt: skip
