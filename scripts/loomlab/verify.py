#!/usr/bin/env python3
"""`./lab k8s verify`: the manifests checked as a cluster would, without a cluster.

Stages, each printed:
  1. render   every kustomization with `kubectl kustomize`
  2. schema   kubeconform, strict (unknown fields are errors), against Kubernetes' published JSON
              schemas bundled by the PyPI package kubernetes-validate (local files, no network)
  3. server   `kubectl apply --dry-run=server` into a real kube-apiserver + etcd on loopback, the
              namespace labelled pod-security.kubernetes.io/enforce=restricted, so the API server's
              own validation and Pod Security admission judge every object
  4. refs     every ConfigMap, Secret, PVC and Service a pod or StatefulSet names exists in the
              rendered output, and every Service selector matches a pod template
Then the same stages against deliberately broken manifests (deploy/k8s/testdata/broken), each of
which must be rejected by the stage it targets: proof that each check can fail.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml  # PyYAML, installed with kubernetes-validate

from loomlab import ROOT, k6files, proc

K8S = ROOT / "deploy" / "k8s"
KUSTOMIZATIONS = [
    "namespace",
    "access",
    "base",
    "overlays/jvm",
    "overlays/jvm-aot",
    "overlays/native",
    "overlays/jvm-autoscaled",
    "jobs",
    "operator",
    "local",
    "local/jobs",
]
# Custom resources the API server here does not know (the k6 operator's CRDs are not installed).
NO_SCHEMA_KINDS = {"TestRun"}
NAMESPACE = "loom-lab"


def say(msg: str):
    print(msg, flush=True)


def run(cmd, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, **kw)


# ------------------------------------------------------------------------------------------
# 1. render
# ------------------------------------------------------------------------------------------


def render(directory: Path) -> list[dict]:
    p = run(["kubectl", "kustomize", str(directory)])
    if p.returncode != 0:
        raise Failure(f"render {directory.relative_to(ROOT)}: {p.stderr.strip()}")
    return [d for d in yaml.safe_load_all(p.stdout) if d]


class Failure(Exception):
    pass


# ------------------------------------------------------------------------------------------
# 2. schema
# ------------------------------------------------------------------------------------------


def prepare_schemas(source: Path, target: Path) -> Path:
    """kubernetes-validate's schemas, made usable offline by kubeconform: drop each `$id` and make
    the `/api/_definitions.json` references file-relative (else it silently tries the network)."""
    if (target / "_definitions.json").exists():
        return target
    target.mkdir(parents=True, exist_ok=True)
    for f in source.glob("*.json"):
        text = f.read_text().replace('"/api/_definitions.json#', '"_definitions.json#')
        data = json.loads(text)
        if isinstance(data, dict):
            data.pop("$id", None)
        (target / f.name).write_text(json.dumps(data))
    return target


def schema_check(kubeconform: str, schemas: Path, docs: list[dict], label: str):
    checked = [d for d in docs if d.get("kind") not in NO_SCHEMA_KINDS]
    with tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False) as f:
        yaml.safe_dump_all(checked, f)
        path = f.name
    try:
        p = run(
            [
                kubeconform,
                "-strict",
                "-summary",
                "-output",
                "text",
                "-schema-location",
                str(schemas) + "/{{.ResourceKind}}{{.KindSuffix}}.json",
                path,
            ]
        )
    finally:
        os.unlink(path)
    if p.returncode != 0:
        raise Failure(f"schema {label}: {(p.stdout + p.stderr).strip()}")
    return p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""


# ------------------------------------------------------------------------------------------
# 3. server
# ------------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ApiServer:
    """etcd and kube-apiserver on loopback, with a token for a system:masters user."""

    def __init__(self, apiserver: str, etcd: str):
        self.dir = Path(tempfile.mkdtemp(prefix="loomlab-apiserver-"))
        self.procs = []
        etcd_client, etcd_peer, self.port = free_port(), free_port(), free_port()
        token = self.dir / "tokens.csv"
        token.write_text("loomlab-verify-token,verify,1,system:masters\n")
        key = self.dir / "sa.key"
        subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
        self.procs.append(
            subprocess.Popen(
                [
                    etcd,
                    "--data-dir",
                    str(self.dir / "etcd"),
                    "--listen-client-urls",
                    f"http://127.0.0.1:{etcd_client}",
                    "--advertise-client-urls",
                    f"http://127.0.0.1:{etcd_client}",
                    "--listen-peer-urls",
                    f"http://127.0.0.1:{etcd_peer}",
                    "--initial-advertise-peer-urls",
                    f"http://127.0.0.1:{etcd_peer}",
                    "--initial-cluster",
                    f"default=http://127.0.0.1:{etcd_peer}",
                ],
                stdout=(self.dir / "etcd.log").open("w"),
                stderr=subprocess.STDOUT,
            )
        )
        self.procs.append(
            subprocess.Popen(
                [
                    apiserver,
                    "--etcd-servers",
                    f"http://127.0.0.1:{etcd_client}",
                    "--bind-address",
                    "127.0.0.1",
                    "--secure-port",
                    str(self.port),
                    "--cert-dir",
                    str(self.dir / "certs"),
                    "--token-auth-file",
                    str(token),
                    "--authorization-mode",
                    "RBAC",
                    "--service-account-issuer",
                    "https://kubernetes.default.svc",
                    "--service-account-key-file",
                    str(key),
                    "--service-account-signing-key-file",
                    str(key),
                    "--service-cluster-ip-range",
                    "10.96.0.0/16",
                    "--enable-admission-plugins",
                    "NamespaceLifecycle,PodSecurity",
                    # No controller manager creates default service accounts here.
                    "--disable-admission-plugins",
                    "ServiceAccount",
                ],
                stdout=(self.dir / "apiserver.log").open("w"),
                stderr=subprocess.STDOUT,
            )
        )
        self.kubeconfig = self.dir / "kubeconfig"
        self.kubeconfig.write_text(
            yaml.safe_dump(
                {
                    "apiVersion": "v1",
                    "kind": "Config",
                    "current-context": "verify",
                    "clusters": [
                        {
                            "name": "verify",
                            "cluster": {"server": f"https://127.0.0.1:{self.port}", "insecure-skip-tls-verify": True},
                        }
                    ],
                    "users": [{"name": "verify", "user": {"token": "loomlab-verify-token"}}],
                    "contexts": [{"name": "verify", "context": {"cluster": "verify", "user": "verify"}}],
                }
            )
        )
        deadline = time.monotonic() + 90
        while time.monotonic() < deadline:
            if self.kubectl("get", "--raw", "/readyz").returncode == 0:
                return
            if any(p.poll() is not None for p in self.procs):
                break
            time.sleep(0.5)
        log = (self.dir / "apiserver.log").read_text()[-3000:]
        self.stop()
        raise Failure(f"kube-apiserver did not become ready:\n{log}")

    def kubectl(self, *args, stdin: str | None = None) -> subprocess.CompletedProcess:
        return run(["kubectl", "--kubeconfig", str(self.kubeconfig), *args], input=stdin)

    def namespace(self, doc: dict):
        p = self.kubectl("apply", "-f", "-", stdin=yaml.safe_dump(doc))
        if p.returncode != 0:
            raise Failure(f"namespace: {p.stderr.strip()}")

    def dry_run(self, docs: list[dict], label: str):
        checked = [d for d in docs if d.get("kind") not in NO_SCHEMA_KINDS and d.get("kind") != "Namespace"]
        # A Namespace exists already (namespace() made it): checked on its own where it is all there is.
        checked = checked or [d for d in docs if d.get("kind") == "Namespace"]
        p = self.kubectl("apply", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump_all(checked))
        if p.returncode != 0:
            raise Failure(f"server {label}: {p.stderr.strip()}")
        # Pod Security enforces on pods; for workload templates the API server only warns.
        violations = [line for line in p.stderr.splitlines() if "would violate PodSecurity" in line]
        if violations:
            raise Failure(f"server {label}: " + " ".join(violations))
        return len(checked)

    def stop(self):
        for p in reversed(self.procs):
            proc.stop(p, 10)
        shutil.rmtree(self.dir, ignore_errors=True)


# ------------------------------------------------------------------------------------------
# 4. refs
# ------------------------------------------------------------------------------------------


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


# ------------------------------------------------------------------------------------------
# Main
# ------------------------------------------------------------------------------------------


def k6_check(docs: list[dict], label: str) -> int:
    count, problems = k6files.check(docs)
    if problems:
        raise Failure(f"k6files {label}: " + "; ".join(problems))
    return count


def stages(docs, label, kubeconform, schemas, server, which=("schema", "server", "refs", "k6files")):
    out = []
    if "schema" in which:
        out.append("schema: " + schema_check(kubeconform, schemas, docs, label))
    if "server" in which:
        out.append(f"server: {server.dry_run(docs, label)} objects accepted")
    if "refs" in which:
        out.append(f"refs: {refs_check(docs, label)} references resolved")
    if "k6files" in which:
        out.append(f"k6files: {k6_check(docs, label)} mounted scripts reach only mounted files")
    return out


def main():
    tools = dict(line.split("=", 1) for line in os.environ["LOOMLAB_K8S_TOOLS"].split())
    schemas = prepare_schemas(Path(os.environ["LOOMLAB_K8S_SCHEMAS_SRC"]), Path(os.environ["LOOMLAB_K8S_SCHEMAS"]))

    creds = K8S / "base" / "db-credentials.env"
    made_creds = not creds.exists()
    if made_creds:  # a throwaway value so base renders; never committed (gitignored)
        creds.write_text("username=loomlab\npassword=verify-only\n")
    try:
        say("== 1. render")
        rendered = {}
        for k in KUSTOMIZATIONS:
            rendered[k] = render(K8S / k)
            kinds = sorted({d["kind"] for d in rendered[k]})
            say(f"   {k}: {len(rendered[k])} objects ({', '.join(kinds)})")
    finally:
        if made_creds:
            creds.unlink()
    everything = [d for k in KUSTOMIZATIONS for d in rendered[k]]
    namespace_doc = next(d for d in rendered["base"] if d["kind"] == "Namespace")

    say("== 2.-4. schema, server, refs")
    server = ApiServer(tools["KUBE_APISERVER"], tools["ETCD"])
    try:
        server.namespace(namespace_doc)
        say(
            f"   kube-apiserver ready on 127.0.0.1:{server.port}; namespace {NAMESPACE} "
            f"enforces '{namespace_doc['metadata']['labels']['pod-security.kubernetes.io/enforce']}'"
        )
        for k in KUSTOMIZATIONS:
            for line in stages(rendered[k], k, tools["KUBECONFORM"], schemas, server, ("schema", "server", "k6files")):
                say(f"   {k}: {line}")
        say(f"   all: refs: {refs_check(everything, 'all')} references resolved across every kustomization")

        say("== negative checks: each broken manifest must be rejected by its stage")
        broken = K8S / "testdata" / "broken"
        failures = 0
        for case in sorted(p for p in broken.iterdir() if p.is_dir()):
            expect = (case / "EXPECT").read_text().split()[0]
            docs = render(case)
            try:
                stages(docs, case.name, tools["KUBECONFORM"], schemas, server, (expect,))
            except Failure as e:
                say(f"   {case.name}: rejected by {expect} as expected: {' '.join(str(e).split())[-160:]}")
                continue
            say(f"   {case.name}: NOT rejected by {expect}")
            failures += 1
        if failures:
            raise Failure(f"{failures} broken manifest(s) passed a check that should have failed")
    finally:
        server.stop()
    say("k8s verify: all stages passed")


if __name__ == "__main__":
    try:
        main()
    except Failure as e:
        print(f"k8s verify FAILED: {e}", file=sys.stderr)
        sys.exit(1)
