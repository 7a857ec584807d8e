"""etcd as the lab's cluster runs it (flags.etcd): TLS on loopback, every client showing a
certificate of etcd's own CA, and the proofs `up` gives of it: etcd refuses a client without one,
and a Secret is stored sealed (encryption at rest), read back raw through etcd's gRPC gateway."""

from __future__ import annotations

import base64
import json
import secrets
import ssl
import urllib.request

from loomlab import proc
from loomlab.kube import Kube

from .flags import ETCD_URL, PKI

# What the API server writes before a Secret sealed by the secretbox provider named key1.
SEALED = b"k8s:enc:secretbox:v1:key1:"


def context(client_cert: bool = True) -> ssl.SSLContext:
    """TLS to etcd, trusting its CA only; with the API server's client certificate, or none."""
    ctx = ssl.create_default_context(cafile=str(PKI / "etcd-ca.crt"))
    if client_cert:
        ctx.load_cert_chain(PKI / "apiserver-etcd-client.crt", PKI / "apiserver-etcd-client.key")
    return ctx


def healthy() -> bool:
    return proc.http_ok(f"{ETCD_URL}/health", context=context())


def refuses_a_client_without_a_certificate() -> bool:
    try:
        proc.http_ok(f"{ETCD_URL}/health", context=context(client_cert=False))
    except OSError:  # the handshake fails (ssl.SSLError), or the connection is reset
        return True
    return False


def stored(key: str) -> bytes:
    """The value etcd holds under `key`, as stored (b"" when there is none)."""
    body = json.dumps({"key": base64.b64encode(key.encode()).decode()}).encode()
    req = urllib.request.Request(f"{ETCD_URL}/v3/kv/range", data=body, method="POST")
    with urllib.request.urlopen(req, timeout=5, context=context()) as r:
        kvs = json.load(r).get("kvs", [])
    return base64.b64decode(kvs[0]["value"]) if kvs else b""


def secrets_sealed(api: Kube) -> bool:
    """A throwaway Secret written through the API server is stored sealed, its value nowhere in
    what etcd holds; the Secret is deleted again."""
    name, value = "loom-lab-at-rest-probe", secrets.token_hex(16)
    path = "/api/v1/namespaces/kube-system/secrets"
    # kube-system is made by the API server's bootstrap controller, just after it is ready.
    if not proc.wait_until(lambda: api.json("/api/v1/namespaces/kube-system", 2), 30, 0.2):
        raise RuntimeError("the API server made no kube-system namespace")
    api.request(
        "POST",
        path,
        {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "stringData": {"probe": value}},
    )
    try:
        raw = stored(f"/registry/secrets/kube-system/{name}")
        return raw.startswith(SEALED) and value.encode() not in raw
    finally:
        api.request("DELETE", f"{path}/{name}", {})
