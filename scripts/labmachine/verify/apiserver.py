"""Stage 3's judge: a real etcd and kube-apiserver on loopback, for `kubectl apply --dry-run=server`."""

from __future__ import annotations

import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import yaml

from loomlab import proc

from ..cluster.flags import command
from ..cluster.pki import kubeconfig
from . import NOT_SERVED_KINDS, Failure, run, testrun


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ApiServer:
    """etcd and kube-apiserver on loopback, with a token for a system:masters user."""

    def __init__(self, apiserver: str, etcd: str):
        """Long because it declares etcd's and kube-apiserver's command lines, as data."""
        self.dir = Path(tempfile.mkdtemp(prefix="loomlab-apiserver-"))
        self.procs: list[subprocess.Popen] = []
        self._cluster_scoped: set[str] | None = None  # discovery's answer, read again after a CRD
        client, peer = (f"http://127.0.0.1:{free_port()}" for _ in range(2))
        self.port = free_port()
        token = self.dir / "tokens.csv"
        token.write_text("loomlab-verify-token,verify,1,system:masters\n")
        key = self.dir / "sa.key"
        subprocess.run(["openssl", "genrsa", "-out", str(key), "2048"], check=True, capture_output=True)
        etcd_options = {
            "--data-dir": self.dir / "etcd",
            "--listen-client-urls": client,
            "--advertise-client-urls": client,
            "--listen-peer-urls": peer,
            "--initial-advertise-peer-urls": peer,
            "--initial-cluster": f"default={peer}",
        }
        self.start("etcd", command(etcd, etcd_options))
        options = {
            "--etcd-servers": client,
            "--bind-address": "127.0.0.1",
            "--secure-port": self.port,
            "--cert-dir": self.dir / "certs",
            "--token-auth-file": token,
            "--authorization-mode": "RBAC",
            "--service-account-issuer": "https://kubernetes.default.svc",
            "--service-account-key-file": key,
            "--service-account-signing-key-file": key,
            "--service-cluster-ip-range": "10.96.0.0/16",
            "--enable-admission-plugins": "NamespaceLifecycle,PodSecurity",
            "--disable-admission-plugins": "ServiceAccount",  # no controller manager makes default accounts here
        }
        self.start("apiserver", command(apiserver, options))
        self.kubeconfig = self.dir / "kubeconfig"
        server = {"server": f"https://127.0.0.1:{self.port}", "insecure-skip-tls-verify": True}
        self.kubeconfig.write_text(yaml.safe_dump(kubeconfig(server, "verify", "loomlab-verify-token")))

        def ready() -> bool:
            return self.kubectl("get", "--raw", "/readyz").returncode == 0

        if not proc.wait_until(ready, 90, 0.5, give_up=lambda: any(p.poll() is not None for p in self.procs)):
            log = (self.dir / "apiserver.log").read_text()[-3000:]
            self.stop()
            raise Failure(f"kube-apiserver did not become ready:\n{log}")

    def start(self, name: str, argv: list) -> None:
        self.procs.append(subprocess.Popen(argv, stdout=(self.dir / f"{name}.log").open("w"), stderr=subprocess.STDOUT))

    def kubectl(self, *args, stdin: str | None = None) -> subprocess.CompletedProcess:
        return run(["kubectl", "--kubeconfig", str(self.kubeconfig), *args], input=stdin)

    def must(self, what: str, *args, stdin: str | None = None) -> subprocess.CompletedProcess:
        """kubectl(*args), or a Failure: `what`, then what kubectl said on stderr."""
        p = self.kubectl(*args, stdin=stdin)
        if p.returncode != 0:
            raise Failure(f"{what}: {p.stderr.strip()}")
        return p

    def namespace(self, doc: dict):
        self.must("namespace", "apply", "-f", "-", stdin=yaml.safe_dump(doc))

    def crd(self, path: Path):
        """A CustomResourceDefinition created for real and Established: its kind is then judged by
        its own schema (unknown fields included: kubectl asks for strict field validation)."""
        self.must(f"CRD {path.name}", "apply", "--server-side", "-f", str(path))
        name = yaml.safe_load(path.read_text())["metadata"]["name"]
        self.must(f"CRD {name} not Established", "wait", "--for=condition=Established", "--timeout=60s", f"crd/{name}")
        self._cluster_scoped = None

    def cluster_scoped_kinds(self) -> set[str]:
        """The kinds this API server (with the CRDs created so far) keeps outside any namespace, from
        its discovery (`kubectl api-resources`, whose last column is the kind): asked once, and again
        only after crd() has added a kind."""
        if self._cluster_scoped is None:
            p = self.must("api-resources", "api-resources", "--namespaced=false", "--no-headers")
            self._cluster_scoped = {line.split()[-1] for line in p.stdout.splitlines() if line.strip()}
        return set(self._cluster_scoped)

    def dry_run(self, docs: list[dict], label: str):
        checked = [d for d in docs if d.get("kind") not in NOT_SERVED_KINDS and d.get("kind") != "Namespace"]
        # A TestRun is judged by the pods the k6 operator makes of it.
        checked += [pod for d in docs if d.get("kind") == "TestRun" for pod in testrun.pods(d)]
        # A Namespace exists already (namespace() made it): checked on its own where it is all there is.
        checked = checked or [d for d in docs if d.get("kind") == "Namespace"]
        p = self.must(f"server {label}", "apply", "--dry-run=server", "-f", "-", stdin=yaml.safe_dump_all(checked))
        # Pod Security enforces on pods; for workload templates the API server only warns.
        violations = [line for line in p.stderr.splitlines() if "would violate PodSecurity" in line]
        if violations:
            raise Failure(f"server {label}: " + " ".join(violations))
        return len(checked)

    def stop(self):
        for p in reversed(self.procs):
            proc.stop(p, 10)
        shutil.rmtree(self.dir, ignore_errors=True)
