"""Talking to the cluster: the API server over HTTPS with the admin token (no kubectl process per
poll), kubectl for what it does best (apply), and one DNS query to prove the cluster's DNS."""

from __future__ import annotations

import json
import secrets
import socket
import ssl
import struct
import subprocess
import urllib.request
from pathlib import Path

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


def dns_query(name: str, server: str, timeout: float = 2) -> list[str]:
    """A records of `name` from `server` (one UDP query)."""
    qid = secrets.randbits(16)
    q = struct.pack(">HHHHHH", qid, 0x0100, 1, 0, 0, 0)
    q += b"".join(bytes([len(p)]) + p.encode() for p in name.rstrip(".").split(".")) + b"\0" + struct.pack(">HH", 1, 1)
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.settimeout(timeout)
        s.sendto(q, (server, 53))
        data = s.recv(4096)
    answers = struct.unpack(">H", data[6:8])[0]
    i = 12
    while data[i]:
        i += data[i] + 1
    i += 5
    found = []
    for _ in range(answers):
        i += 2 if data[i] & 0xC0 == 0xC0 else data.index(b"\0", i) - i + 1
        rtype, _, _, length = struct.unpack(">HHIH", data[i : i + 10])
        i += 10
        if rtype == 1:
            found.append(socket.inet_ntoa(data[i : i + length]))
        i += length
    return found
