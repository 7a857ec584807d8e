"""Talking to the cluster: the API server through the harness's Kube with the admin's kubeconfig (no
kubectl process per poll), kubectl for what it does best (apply), and one DNS query to prove the
cluster's DNS."""

from __future__ import annotations

import subprocess

import dns.exception
import dns.message
import dns.query
import dns.rdatatype
from kubernetes.config import ConfigException
from urllib3.exceptions import HTTPError

from loomlab.kube import ApiException, Kube, Target

from .settings import KUBECONFIG, sh

# What a call to the API server raises while it, what it proxies, or the admin's kubeconfig is not
# there yet.
NOT_YET = (OSError, ApiException, HTTPError, ConfigException)


def api(namespace: str | None = None) -> Kube:
    """The API server with the admin's kubeconfig, through the official client (no kubectl process
    per poll)."""
    return Kube(Target(str(KUBECONFIG), namespace=namespace))


def kubectl(*args, input=None, check=True, timeout=120) -> subprocess.CompletedProcess:
    return sh("kubectl", "--kubeconfig", KUBECONFIG, *args, input=input, check=check, timeout=timeout)


def dns_query(name: str, server: str, timeout: float = 2, port: int = 53) -> list[str]:
    """A records of `name` from `server` (one UDP query, dnspython); none when it does not answer."""
    try:
        answer = dns.query.udp(dns.message.make_query(name, dns.rdatatype.A), server, timeout=timeout, port=port)
    except (OSError, dns.exception.DNSException):
        return []
    return [r.address for rrset in answer.answer if rrset.rdtype == dns.rdatatype.A for r in rrset]
