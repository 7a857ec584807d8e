"""Certificates, tokens and kubeconfigs: a CA of the cluster's own, the API server's serving and
kubelet-client certificates, the aggregation layer's front proxy (a CA of its own and the client
certificate the API server shows metrics-server, as kubeadm sets it up), etcd's (a CA of its own,
etcd's certificate and the API server's client certificate: etcd serves only clients that show
one), the service-account key pair, the key Secrets are encrypted with in etcd, and one token per
identity."""

from __future__ import annotations

import base64
import json
import os
import secrets
from pathlib import Path

from .settings import API_PORT, API_SERVICE_IP, KUBECONFIG, NODE, NODE_IP, RUN, sh

# user -> groups; each gets a random token and a kubeconfig.
IDENTITIES = {
    "admin": ("loom-lab-admin", "system:masters"),
    "kubelet": (f"system:node:{NODE}", "system:nodes"),
    "controller-manager": ("system:kube-controller-manager", ""),
    "scheduler": ("system:kube-scheduler", ""),
    "proxy": ("system:kube-proxy", ""),
    "coredns": ("loom-lab:coredns", ""),
    "metrics-server": ("loom-lab:metrics-server", ""),
    "kube-router": ("loom-lab:kube-router", ""),
}


def make_pki(pki: Path):
    """Long because it declares every certificate of the cluster, one call each."""
    pki.mkdir(parents=True, exist_ok=True)
    pki.chmod(0o700)  # the keys openssl writes follow the umask: the folder keeps them private

    def certificate(name: str, subject: str, *signer: str | Path):
        """A key and its certificate in one openssl call: an authority, self-signed with req's default
        (v3_ca) extensions (CA:TRUE, key identifiers), unless `signer` names its CA and extensions."""
        files = ["-keyout", pki / f"{name}.key", "-out", pki / f"{name}.crt"]
        sh("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "30", "-subj", subject, *files, *signer)

    def cert(name: str, subject: str, sans: str | None = None, usage: str = "serverAuth", ca: str = "ca"):
        """Signed by `ca`: the -CA form of req still adds v3_ca's CA:TRUE, so a leaf overrides it."""
        exts = ["basicConstraints=critical,CA:FALSE", f"extendedKeyUsage={usage}"]
        exts += [f"subjectAltName={sans}"] if sans else []
        signer: list[str | Path] = ["-CA", pki / f"{ca}.crt", "-CAkey", pki / f"{ca}.key"]
        certificate(name, subject, *signer, *(arg for ext in exts for arg in ("-addext", ext)))

    certificate("ca", "/CN=loom-lab-ca")
    sans = ",".join(
        [
            f"IP:{NODE_IP}",
            f"IP:{API_SERVICE_IP}",
            "IP:127.0.0.1",
            "DNS:localhost",
            "DNS:kubernetes",
            "DNS:kubernetes.default",
            "DNS:kubernetes.default.svc",
            "DNS:kubernetes.default.svc.cluster.local",
        ]
    )
    cert("apiserver", "/CN=kube-apiserver", sans)
    # The API server's client certificate towards the kubelet (logs, exec, port-forward).
    cert("apiserver-kubelet-client", "/O=system:masters/CN=kube-apiserver-kubelet-client", usage="clientAuth")
    # The aggregation layer: requests the API server proxies to metrics-server carry the user in
    # headers, trusted because this client certificate of the front-proxy CA sends them.
    certificate("front-proxy-ca", "/CN=loom-lab-front-proxy-ca")
    cert("front-proxy-client", "/CN=front-proxy-client", usage="clientAuth", ca="front-proxy-ca")
    # etcd, as kubeadm sets it up: a CA of its own, so no certificate of the cluster's CA opens it;
    # etcd's certificate serves clients and its own peer port, the API server's is a client's.
    certificate("etcd-ca", "/CN=loom-lab-etcd-ca")
    cert("etcd-server", "/CN=etcd", "IP:127.0.0.1,DNS:localhost", usage="serverAuth,clientAuth", ca="etcd-ca")
    cert("apiserver-etcd-client", "/CN=kube-apiserver-etcd-client", usage="clientAuth", ca="etcd-ca")
    sh("openssl", "genrsa", "-out", pki / "sa.key", "2048")
    write_private(pki / "encryption.yaml", encryption_config(secrets.token_bytes(32)))
    sh("openssl", "rsa", "-in", pki / "sa.key", "-pubout", "-out", pki / "sa.pub")


def kubeconfig(cluster: dict, user: str, token: str) -> dict:
    """A kubeconfig of one cluster (its server and how it is trusted) and one user with a token."""
    return {
        "apiVersion": "v1",
        "kind": "Config",
        "current-context": "loom-lab",
        "clusters": [{"name": "loom-lab", "cluster": cluster}],
        "users": [{"name": user, "user": {"token": token}}],
        "contexts": [{"name": "loom-lab", "context": {"cluster": "loom-lab", "user": user}}],
    }


def make_kubeconfigs():
    lines = []
    for name, (user, groups) in IDENTITIES.items():
        token = secrets.token_hex(24)
        lines.append(f'{token},{user},{user},"{groups}"' if groups else f"{token},{user},{user}")
        server = {"server": f"https://{NODE_IP}:{API_PORT}", "certificate-authority": str(RUN / "pki" / "ca.crt")}
        cfg = kubeconfig(server, user, token)
        path = KUBECONFIG if name == "admin" else RUN / f"{name}.kubeconfig"
        write_private(path, json.dumps(cfg, indent=1))
    write_private(RUN / "pki" / "tokens.csv", "\n".join(lines) + "\n")


def encryption_config(key: bytes) -> str:
    """The API server's EncryptionConfiguration: Secrets written to etcd sealed with `key`
    (secretbox: XSalsa20-Poly1305); `identity` after it reads what was written before."""
    return json.dumps(
        {
            "apiVersion": "apiserver.config.k8s.io/v1",
            "kind": "EncryptionConfiguration",
            "resources": [
                {
                    "resources": ["secrets"],
                    "providers": [
                        {"secretbox": {"keys": [{"name": "key1", "secret": base64.b64encode(key).decode()}]}},
                        {"identity": {}},
                    ],
                }
            ],
        },
        indent=1,
    )


def write_private(path: Path, text: str):
    """A file only its owner reads, from its first byte: made 0600, never world-readable for a moment
    (an old one is replaced, not rewritten in place with its old mode)."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
