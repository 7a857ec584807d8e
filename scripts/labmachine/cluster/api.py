"""Talking to the cluster: the API server over HTTPS with the admin token (no kubectl process per
poll), kubectl for what it does best (apply), and one DNS query to prove the cluster's DNS."""

from __future__ import annotations

import json
import ssl
import subprocess
import urllib.request
from pathlib import Path

import dns.exception
import dns.message
import dns.query
import dns.rdatatype

from .settings import KUBECONFIG, sh


class Api:
    """The API server over HTTPS with the admin token."""

    def __init__(self, kubeconfig: Path = KUBECONFIG):
        cfg = json.loads(kubeconfig.read_text())
        self.server = cfg["clusters"][0]["cluster"]["server"]
        self.token = cfg["users"][0]["user"]["token"]
        self.ctx = ssl.create_default_context(cafile=cfg["clusters"][0]["cluster"]["certificate-authority"])

    def get(self, path: str, timeout: float = 10) -> bytes:
        req = urllib.request.Request(self.server + path, headers={"Authorization": f"Bearer {self.token}"})
        with urllib.request.urlopen(req, timeout=timeout, context=self.ctx) as r:
            return r.read()

    def json(self, path: str, timeout: float = 10) -> dict:
        return json.loads(self.get(path, timeout))

    def send(
        self, method: str, path: str, body: dict, content_type: str = "application/json", timeout: float = 10
    ) -> bytes:
        """A request with a JSON body (PATCH through a pod's proxy, for one)."""
        req = urllib.request.Request(
            self.server + path,
            data=json.dumps(body).encode(),
            method=method,
            headers={"Authorization": f"Bearer {self.token}", "Content-Type": content_type},
        )
        with urllib.request.urlopen(req, timeout=timeout, context=self.ctx) as r:
            return r.read()


def kubectl(*args, input=None, check=True, timeout=120) -> subprocess.CompletedProcess:
    return sh("kubectl", "--kubeconfig", KUBECONFIG, *args, input=input, check=check, timeout=timeout)


def dns_query(name: str, server: str, timeout: float = 2, port: int = 53) -> list[str]:
    """A records of `name` from `server` (one UDP query, dnspython); none when it does not answer."""
    try:
        answer = dns.query.udp(dns.message.make_query(name, dns.rdatatype.A), server, timeout=timeout, port=port)
    except (OSError, dns.exception.DNSException):
        return []
    return [r.address for rrset in answer.answer if rrset.rdtype == dns.rdatatype.A for r in rrset]
