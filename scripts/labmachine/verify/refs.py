"""Stage 4: every ConfigMap, Secret, PVC and Service a pod names exists, and every Service selects a pod."""

from __future__ import annotations

from . import NAMESPACE, Failure


def pod_specs(doc: dict):
    kind = doc.get("kind")
    spec = doc.get("spec", {})
    if kind == "Pod":
        yield spec, doc.get("metadata", {}).get("labels", {})
    elif kind in ("Deployment", "StatefulSet", "DaemonSet", "ReplicaSet", "Job"):
        t = spec.get("template", {})
        yield t.get("spec", {}), t.get("metadata", {}).get("labels", {})
    elif kind == "CronJob":
        t = spec.get("jobTemplate", {}).get("spec", {}).get("template", {})
        yield t.get("spec", {}), t.get("metadata", {}).get("labels", {})
    elif kind == "TestRun":  # the k6 operator's runner pods
        yield {"volumes": spec.get("runner", {}).get("volumes", []), "containers": []}, {}


def refs_check(docs: list[dict], label: str) -> int:
    """Long because it names each kind of reference a pod can hold (ConfigMap, Secret, PVC, Service) and checks each."""
    names: dict[str | None, set[str | None]] = {}
    for d in docs:
        names.setdefault(d.get("kind"), set()).add(d.get("metadata", {}).get("name"))
    problems, count = [], 0

    def need(kind, name, where):
        nonlocal count
        count += 1
        if name not in names.get(kind, set()):
            problems.append(f"{where} refers to {kind} '{name}', which is not in the rendered output")

    templates = []
    for d in docs:
        where = f"{d.get('kind')}/{d.get('metadata', {}).get('name')}"
        if d.get("kind") == "StatefulSet" and d["spec"].get("serviceName"):
            need("Service", d["spec"]["serviceName"], where)
        if d.get("kind") == "TestRun" and d["spec"].get("script", {}).get("configMap"):
            need("ConfigMap", d["spec"]["script"]["configMap"]["name"], where)
        claims = {c["metadata"]["name"] for c in d.get("spec", {}).get("volumeClaimTemplates", [])}
        for spec, labels in pod_specs(d):
            templates.append((d.get("kind"), labels))
            for v in spec.get("volumes", []):
                if "configMap" in v:
                    need("ConfigMap", v["configMap"]["name"], where)
                if "secret" in v:
                    need("Secret", v["secret"]["secretName"], where)
                if "persistentVolumeClaim" in v:
                    need("PersistentVolumeClaim", v["persistentVolumeClaim"]["claimName"], where)
            volumes = {v["name"] for v in spec.get("volumes", [])} | claims
            for c in spec.get("containers", []) + spec.get("initContainers", []):
                for m in c.get("volumeMounts", []):
                    count += 1
                    if m["name"] not in volumes:
                        problems.append(f"{where} mounts volume '{m['name']}', which the pod does not declare")
                for e in c.get("envFrom", []):
                    if "configMapRef" in e:
                        need("ConfigMap", e["configMapRef"]["name"], where)
                    if "secretRef" in e:
                        need("Secret", e["secretRef"]["name"], where)
                for e in c.get("env", []):
                    ref = e.get("valueFrom", {})
                    if "configMapKeyRef" in ref:
                        need("ConfigMap", ref["configMapKeyRef"]["name"], where)
                    if "secretKeyRef" in ref:
                        need("Secret", ref["secretKeyRef"]["name"], where)
    for d in docs:
        # What selects pods (a Service, a PodDisruptionBudget) must select some pod template here.
        spec = d.get("spec", {})
        sel = (
            spec.get("selector")
            if d.get("kind") == "Service"
            else (spec.get("selector", {}).get("matchLabels") if d.get("kind") == "PodDisruptionBudget" else None)
        )
        if sel:
            count += 1
            if not any(all(labels.get(k) == v for k, v in sel.items()) for _, labels in templates):
                problems.append(f"{d['kind']}/{d['metadata']['name']} selects {sel}, which no pod template carries")
        if d.get("kind") == "HorizontalPodAutoscaler":
            target = spec["scaleTargetRef"]
            need(target["kind"], target["name"], f"HorizontalPodAutoscaler/{d['metadata']['name']}")
    if problems:
        raise Failure(f"refs {label}: " + "; ".join(problems))
    return count


def fully_qualified(image: str) -> bool:
    """Whether an image reference names its registry: a first part with a dot or a port, or
    localhost (a bare `loom-lab/x` means docker.io/loom-lab/x, a namespace this project does not own)."""
    first, _, rest = image.partition("/")
    return bool(rest) and ("." in first or ":" in first or first == "localhost")


def images_check(docs: list[dict], label: str) -> int:
    """Every image a pod, a Job or the operator's TestRun runs is fully qualified."""
    images = []
    for d in docs:
        for spec, _ in pod_specs(d):
            images += [c.get("image", "") for c in spec.get("containers", []) + spec.get("initContainers", [])]
        if d.get("kind") == "TestRun":
            images.append(d.get("spec", {}).get("runner", {}).get("image", ""))
    bare = sorted({i for i in images if not fully_qualified(i)})
    if bare:
        raise Failure(f"{label}: images without their registry (docker.io would be assumed): {', '.join(bare)}")
    return len(images)


def namespaces_check(docs: list[dict], label: str, cluster_scoped: set[str]) -> int:
    """Every namespaced object (of a kind not in `cluster_scoped`, the API server's word) is the
    lab's namespace's: one a kustomization leaves without (a component's, where only its bases set
    one) lands in whichever namespace `kubectl apply` is at, `default` as a rule."""
    namespaced = [d for d in docs if d.get("kind") not in cluster_scoped]
    astray = [f"{d['kind']}/{d['metadata']['name']}" for d in namespaced if d["metadata"].get("namespace") != NAMESPACE]
    if astray:
        raise Failure(f"{label}: not in namespace {NAMESPACE} (kubectl apply puts them elsewhere): {', '.join(astray)}")
    return len(namespaced)
