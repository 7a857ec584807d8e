"""The cluster a run talks to, through the official Kubernetes client: any kubeconfig and context
(tokens, client certificates, exec credential plugins) or the pod's own service account, and one
namespace that every namespaced call and every applied manifest uses.

Objects come back as the API's own JSON (dicts with camelCase keys), the shape the manifests are
written in: the runner reads a pod's status the way `kubectl get -o json` shows it."""

from __future__ import annotations

import contextlib
import functools
import json
import os
import socket
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubernetes import client, config, dynamic
from kubernetes.client.rest import ApiException

from loomlab import LabError
from loomlab.labcluster import KUBECONFIG as LOOMLAB_KUBECONFIG

DEFAULT_NAMESPACE = "loom-lab"
FIELD_MANAGER = "loom-lab"
KEPT_POLICY = "loom-lab-configmaps-kept"  # deploy/k8s/access/admission.yaml; its refusals name it

__all__ = ["ApiException", "Kube", "Target", "answered"]


@dataclass(frozen=True)
class Target:
    """Where a run goes: a kubeconfig file and context (None: the lab's own cluster when it is up,
    else the user's current context, else the pod's service account) and a namespace (None: the
    context's, else loom-lab)."""

    kubeconfig: str | None = None
    context: str | None = None
    namespace: str | None = None

    def kubeconfig_file(self) -> str | None:
        if self.kubeconfig:
            return self.kubeconfig
        if not self.context and not os.environ.get("KUBECONFIG") and lab_cluster_up():
            return str(LOOMLAB_KUBECONFIG)
        return None  # the client's own default: $KUBECONFIG, then ~/.kube/config

    def describe(self) -> str:
        where = self.kubeconfig_file() or os.environ.get("KUBECONFIG") or "~/.kube/config"
        return f"kubeconfig {where}" + (f", context {self.context}" if self.context else "")


def lab_cluster_up() -> bool:
    """The lab's cluster on this machine is up: its kubeconfig exists and its API server listens."""
    if not LOOMLAB_KUBECONFIG.exists():
        return False
    server = urllib.parse.urlparse(json.loads(LOOMLAB_KUBECONFIG.read_text())["clusters"][0]["cluster"]["server"])
    try:
        socket.create_connection((server.hostname, server.port or 443), timeout=1).close()
        return True
    except OSError:
        return False


@contextlib.contextmanager
def answered(*statuses: int):
    """An API call whose refusal with one of `statuses` is an answer, not an error (404: gone already)."""
    try:
        yield
    except ApiException as e:
        if e.status not in statuses:
            raise


class Kube:
    """One cluster and one namespace: the typed APIs a run needs, a dynamic client for applying
    manifests (server-side apply, as `kubectl apply --server-side` does), raw paths for proxies."""

    def __init__(self, target: Target | None = None):
        target = target or Target()
        self.target = target
        file = target.kubeconfig_file()
        namespace = target.namespace
        if (
            file
            or Path(os.path.expanduser(config.KUBE_CONFIG_DEFAULT_LOCATION)).exists()
            or os.environ.get("KUBECONFIG")
        ):
            self.client = config.new_client_from_config(config_file=file, context=target.context)
            if not namespace:
                contexts, active = config.list_kube_config_contexts(config_file=file)
                chosen = next((c for c in contexts if c["name"] == target.context), None) if target.context else active
                namespace = (chosen or {}).get("context", {}).get("namespace")
        else:
            configuration = client.Configuration()
            config.load_incluster_config(client_configuration=configuration)
            self.client = client.ApiClient(configuration)
            if not namespace:
                namespace = Path("/var/run/secrets/kubernetes.io/serviceaccount/namespace").read_text().strip()
        self.ns = namespace or DEFAULT_NAMESPACE
        self.core = client.CoreV1Api(self.client)
        self.apps = client.AppsV1Api(self.client)
        self.batch = client.BatchV1Api(self.client)

    @property
    def server(self) -> str:
        return self.client.configuration.host

    # -- raw paths: the API server's proxies, logs, any group --------------------------------------

    def request(
        self, method: str, path: str, body: Any = None, content_type: str = "application/json", timeout: float = 10
    ) -> bytes:
        """One request to a path of the API server (a query string allowed), its body as bytes."""
        parsed = urllib.parse.urlsplit(path)
        response = self.client.call_api(
            parsed.path,
            method,
            query_params=urllib.parse.parse_qsl(parsed.query),
            header_params={"Content-Type": content_type, "Accept": "*/*"},
            body=body,
            auth_settings=["BearerToken"],
            _preload_content=False,
            _request_timeout=timeout,
        )
        return response[0].data

    def get(self, path: str, timeout: float = 10) -> bytes:
        return self.request("GET", path, timeout=timeout)

    def json(self, path: str, timeout: float = 10) -> dict:
        return json.loads(self.get(path, timeout))

    def ns_path(self, rest: str, group: str = "api/v1") -> str:
        """A namespaced path of this run's namespace: ns_path("pods/x/log")."""
        return f"/{group}/namespaces/{self.ns}/{rest}"

    # -- pods ----------------------------------------------------------------------------------------

    def pods(self, selector: str, timeout: float = 5) -> list[dict]:
        return self.json(self.ns_path(f"pods?labelSelector={urllib.parse.quote(selector)}"), timeout)["items"]

    def job_pods(self, job: str, timeout: float = 5) -> list[dict]:
        """The pods a Job made (the label the Job controller puts on each)."""
        return self.pods(f"batch.kubernetes.io/job-name={job}", timeout)

    def pod(self, name: str, timeout: float = 5) -> dict:
        return self.json(self.ns_path(f"pods/{name}"), timeout)

    def pod_log(self, name: str, timeout: float = 30, timestamps: bool = False) -> str:
        """A pod's log; `timestamps`: each line led by the time the runtime took it (RFC 3339, UTC)."""
        query = "?timestamps=true" if timestamps else ""
        return self.get(self.ns_path(f"pods/{name}/log{query}"), timeout).decode(errors="replace")

    def pod_proxy(self, pod: str, port: int, path: str, timeout: float = 5) -> bytes:
        """A GET of a pod's port through the API server (pods/proxy: the runner may get, never create)."""
        return self.get(self.ns_path(f"pods/{pod}:{port}/proxy{path}"), timeout)

    def service_proxy(self, service: str, port: str, path: str, timeout: float = 10) -> bytes:
        """A GET of a Service's named port through the API server (services/proxy)."""
        return self.get(self.ns_path(f"services/http:{service}:{port}/proxy{path}"), timeout)

    # -- manifests -----------------------------------------------------------------------------------

    @functools.cached_property
    def dynamic(self) -> dynamic.DynamicClient:
        return dynamic.DynamicClient(self.client)

    def apply(self, docs: list[dict]):
        """Server-side apply of each manifest, namespaced ones into this run's namespace; a Namespace
        only when it is this one and does not exist yet (a namespaced user can neither create nor
        change one). The Secret is created once (the database was initialised with it; the answer
        to a PATCH of a Secret carries every key back); the database's first-start scripts are the
        admin's (deploy/k8s/access): read, and created only where missing (an admin's run may, the
        admission policy refuses the runner), and scripts there unlike the lab's stop the run."""
        for doc in docs:
            if doc["kind"] != "Namespace" or (doc["metadata"]["name"] == self.ns and not self.namespace_exists()):
                self._apply_one(doc)

    def _apply_one(self, doc: dict):
        resource = self.dynamic.resources.get(api_version=doc["apiVersion"], kind=doc["kind"])
        doc, name = json.loads(json.dumps(doc)), doc["metadata"]["name"]
        if resource.namespaced:
            doc["metadata"]["namespace"] = self.ns
        if (doc["kind"], name) == ("ConfigMap", "postgres-init"):
            self._admins_scripts(resource, doc)
        elif doc["kind"] == "Secret":
            with answered(409):  # there already: kept
                resource.create(body=doc, namespace=self.ns)
        else:
            namespace = self.ns if resource.namespaced else None
            resource.server_side_apply(body=doc, namespace=namespace, field_manager=FIELD_MANAGER, force_conflicts=True)

    def _admins_scripts(self, resource, doc: dict):
        """The database's first-start scripts: the ones there, compared with the lab's; created where
        none are (as an admin), or the admin named when the runner may not."""
        name = doc["metadata"]["name"]
        admin = "kubectl apply -k deploy/k8s/access"
        if self.ns != DEFAULT_NAMESPACE:
            admin += f" (through an overlay that sets namespace {self.ns})"
        there = None
        with answered(404):  # none there yet: created below
            there = resource.get(name=name, namespace=self.ns).to_dict()
        if there is None:
            try:
                resource.create(body=doc, namespace=self.ns)
            except ApiException as refused:
                if KEPT_POLICY in str(refused.body):  # the admission policy's refusal
                    said = f"ConfigMap {name} (the database's first-start scripts) is the admin's: {admin}"
                    raise LabError(said) from refused
                raise
            return
        if there.get("data") != doc.get("data"):
            raise LabError(
                f"ConfigMap {name} in {self.ns} differs from this checkout's, and the runner may not change it: an"
                f" admin deletes it (kubectl -n {self.ns} delete configmap {name}) and applies it again: {admin}"
            )

    def namespace_exists(self) -> bool:
        try:
            self.core.read_namespace(self.ns)
            return True
        except ApiException as e:
            if e.status == 404:
                return False
            if e.status == 403:
                return True  # a namespaced user may not read Namespaces: theirs exists
            raise

    def delete(self, api_version: str, kind: str, name: str):
        """One object of this namespace, and in the background what it owns; gone already is fine."""
        resource = self.dynamic.resources.get(api_version=api_version, kind=kind)
        with answered(404):
            resource.delete(name=name, namespace=self.ns, body={"propagationPolicy": "Background"})

    def delete_namespace(self, timeout_s: float = 180):
        """This namespace and everything in it, returning once it is gone; gone already is fine."""
        with answered(404):
            self.core.delete_namespace(self.ns, propagation_policy="Background")
        self.wait_namespace_gone(timeout_s)

    def wait_namespace_gone(self, timeout_s: float = 180):
        """Returns once this namespace does not exist (one being deleted takes its pods' grace)."""
        deadline = time.monotonic() + timeout_s
        while self.namespace_exists():  # an API error other than 404 or 403 is raised at once, not waited out
            if time.monotonic() > deadline:
                raise LabError(f"namespace {self.ns} still there after {timeout_s:.0f} s")
            time.sleep(1)

    def job_status(self, name: str):
        """A Job's status (V1JobStatus: read with the Job, needing no right to jobs/status); None once gone."""
        with answered(404):
            return self.batch.read_namespaced_job(name, self.ns).status
        return None

    def patch_deployment(self, name: str, json_patch: list[dict]):
        self.request(
            "PATCH",
            self.ns_path(f"deployments/{name}", "apis/apps/v1"),
            json_patch,
            content_type="application/json-patch+json",
        )

    def scale_deployment(self, name: str, replicas: int):
        """The Deployment's replicas set (its pods follow; an autoscaler removed leaves its own count)."""
        self.patch_deployment(name, [{"op": "replace", "path": "/spec/replicas", "value": replicas}])

    def rolled_out(self, kind: str, name: str) -> bool:
        """A Deployment's or StatefulSet's newest generation has every replica updated and ready."""
        read = (
            self.apps.read_namespaced_deployment_status
            if kind == "deployment"
            else self.apps.read_namespaced_stateful_set_status
        )
        obj = read(name, self.ns)
        want = obj.spec.replicas or 0
        status = obj.status
        return (
            (status.observed_generation or 0) >= obj.metadata.generation
            and (status.updated_replicas or 0) >= want
            and (status.ready_replicas or 0) >= want
            and (status.replicas or 0) == want
        )
