"""Each component's command line, as data: `up` starts them in order (see up.py)."""

from __future__ import annotations

from pathlib import Path

from .settings import API_PORT, METRICS_PORT, NODE, NODE_IP, RUN, SERVICE_CIDR

PKI = RUN / "pki"
# The controllers of a single node: no leader election, no profiling endpoint, terse logs.
SINGLE_NODE = ("--leader-elect=false", "--profiling=false", "--v=1")
Argv = list[str | Path]


def command(binary: str | Path, options: dict[str, object], *switches: str) -> Argv:
    """`binary --name value ... switches`: one option per key, in order."""
    argv: Argv = [binary]
    for name, value in options.items():
        argv += [name, value if isinstance(value, Path) else str(value)]
    return argv + list(switches)


def kubeconfigs(kubeconfig: Path) -> dict[str, object]:
    """A control-plane component's own kubeconfig, for the API and for delegated authn/authz."""
    return {
        "--kubeconfig": kubeconfig,
        "--authentication-kubeconfig": kubeconfig,
        "--authorization-kubeconfig": kubeconfig,
    }


ETCD_URL = "https://127.0.0.1:2379"


def etcd(t: dict) -> Argv:
    """On loopback and TLS only: a client (the API server) and the peer port show a certificate of
    etcd's own CA, so no other process of this host reads or writes the cluster's state."""
    peer = "https://127.0.0.1:2380"
    return command(
        t["ETCD"],
        {
            "--data-dir": RUN / "etcd",
            "--listen-client-urls": ETCD_URL,
            "--advertise-client-urls": ETCD_URL,
            "--listen-peer-urls": peer,
            "--initial-advertise-peer-urls": peer,
            "--initial-cluster": f"default={peer}",
            "--cert-file": PKI / "etcd-server.crt",
            "--key-file": PKI / "etcd-server.key",
            "--trusted-ca-file": PKI / "etcd-ca.crt",
            "--peer-cert-file": PKI / "etcd-server.crt",
            "--peer-key-file": PKI / "etcd-server.key",
            "--peer-trusted-ca-file": PKI / "etcd-ca.crt",
            "--log-level": "warn",
        },
        # Switches: etcd reads `--client-cert-auth true` as the switch and a stray argument.
        "--client-cert-auth",
        "--peer-client-cert-auth",
    )


def apiserver(t: dict) -> Argv:
    return command(
        t["KUBE_APISERVER"],
        {
            "--etcd-servers": ETCD_URL,
            "--etcd-cafile": PKI / "etcd-ca.crt",
            "--etcd-certfile": PKI / "apiserver-etcd-client.crt",
            "--etcd-keyfile": PKI / "apiserver-etcd-client.key",
            "--encryption-provider-config": PKI / "encryption.yaml",
            "--bind-address": NODE_IP,
            "--advertise-address": NODE_IP,
            "--secure-port": API_PORT,
            "--service-cluster-ip-range": SERVICE_CIDR,
            "--tls-cert-file": PKI / "apiserver.crt",
            "--tls-private-key-file": PKI / "apiserver.key",
            "--client-ca-file": PKI / "ca.crt",
            "--token-auth-file": PKI / "tokens.csv",
            "--authorization-mode": "Node,RBAC",
            # Beside the defaults (ValidatingAdmissionPolicy among them): a Service may not claim an
            # external IP, which would take that address's traffic in the cluster (CVE-2020-8554).
            "--enable-admission-plugins": "NodeRestriction,DenyServiceExternalIPs",
            "--service-account-issuer": "https://kubernetes.default.svc.cluster.local",
            "--service-account-key-file": PKI / "sa.pub",
            "--service-account-signing-key-file": PKI / "sa.key",
            "--kubelet-client-certificate": PKI / "apiserver-kubelet-client.crt",
            "--kubelet-client-key": PKI / "apiserver-kubelet-client.key",
            "--kubelet-preferred-address-types": "InternalIP",
            # The aggregation layer (metrics.k8s.io served by metrics-server); the API server dials the
            # endpoint's address itself, as it cannot reach Service IPs (kube-proxy's rules are for pods).
            "--requestheader-client-ca-file": PKI / "front-proxy-ca.crt",
            "--requestheader-allowed-names": "front-proxy-client",
            "--requestheader-username-headers": "X-Remote-User",
            "--requestheader-group-headers": "X-Remote-Group",
            "--requestheader-extra-headers-prefix": "X-Remote-Extra-",
            "--proxy-client-cert-file": PKI / "front-proxy-client.crt",
            "--proxy-client-key-file": PKI / "front-proxy-client.key",
        },
        "--allow-privileged=false",
        "--enable-aggregator-routing=true",
        "--profiling=false",
        "--v=1",
    )


def controller_manager(t: dict) -> Argv:
    return command(
        t["KUBE_CONTROLLER_MANAGER"],
        {
            **kubeconfigs(RUN / "controller-manager.kubeconfig"),
            "--bind-address": "127.0.0.1",
            "--cluster-name": "loom-lab",
            "--service-account-private-key-file": PKI / "sa.key",
            "--root-ca-file": PKI / "ca.crt",
        },
        "--use-service-account-credentials=true",
        *SINGLE_NODE,
    )


def scheduler(t: dict) -> Argv:
    return command(
        t["KUBE_SCHEDULER"],
        {**kubeconfigs(RUN / "scheduler.kubeconfig"), "--bind-address": "127.0.0.1"},
        *SINGLE_NODE,
    )


def kubelet(t: dict) -> Argv:
    return command(
        t["KUBELET"],
        {
            "--config": RUN / "kubelet.yaml",
            "--kubeconfig": RUN / "kubelet.kubeconfig",
            "--root-dir": RUN / "kubelet",
            "--cert-dir": RUN / "kubelet" / "pki",
            "--hostname-override": NODE,
            "--node-ip": NODE_IP,
        },
        "--v=1",
    )


def kube_proxy(t: dict) -> Argv:
    return command(t["KUBE_PROXY"], {"--config": RUN / "kube-proxy.yaml"}, "--v=1")


def coredns(t: dict) -> Argv:
    return command(t["COREDNS"], {"-conf": RUN / "Corefile"})


def kube_router(t: dict) -> Argv:
    """NetworkPolicies enforced on the node: kube-router's firewall alone (the CNI bridge keeps the
    routing, kube-proxy the Services), through the iptables and ipset in PATH, so on kube-proxy's
    iptables backend. No health or metrics port: it would listen on every interface."""
    return command(
        t["KUBE_ROUTER"],
        {
            "--kubeconfig": RUN / "kube-router.kubeconfig",
            "--hostname-override": NODE,
            "--service-cluster-ip-range": SERVICE_CIDR,
            "--iptables-sync-period": "1m",
        },
        "--run-firewall=true",
        "--run-router=false",
        "--run-service-proxy=false",
        "--enable-cni=false",
        "--enable-ipv6=false",
        "--health-port=0",
        "--metrics-port=0",
        "--v=1",
    )


def metrics_server(t: dict) -> Argv:
    return command(
        t["METRICS_SERVER"],
        {
            **kubeconfigs(RUN / "metrics-server.kubeconfig"),
            "--bind-address": NODE_IP,
            "--secure-port": METRICS_PORT,
            "--cert-dir": RUN / "metrics-server",
            "--kubelet-preferred-address-types": "InternalIP",
            "--metric-resolution": "15s",
        },
        # The kubelet serves its metrics with a self-signed certificate (no serving CSR is approved here).
        "--kubelet-insecure-tls",
        "--v=1",
    )
