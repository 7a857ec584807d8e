"""`up`: the cluster from nothing, step by step, each timed; a failed `up` undoes itself and keeps
the components' logs."""

from __future__ import annotations

import json
import os
import sys
import time

from loomlab import proc
from loomlab.kube import Kube
from loomlab.podstatus import condition

from . import configs, down, etcd, flags, host, monitoring, network, outside, pki
from .api import api, dns_query, kubectl
from .processes import components_rss_mb, running, start, tools
from .settings import (
    API_PORT,
    API_SERVICE_IP,
    BRIDGE,
    CTR,
    IMAGES,
    KUBECONFIG,
    LAST_LOGS,
    NODE,
    NODE_IP,
    POD_CIDR,
    REGISTRY,
    REGISTRY_ROOT,
    ROOT,
    RUN,
    SERVICE_CIDR,
    SOCK,
    Step,
    fail,
    say,
    sh,
)


def up():
    if running("kube-apiserver"):
        say(f"already up: export KUBECONFIG={KUBECONFIG}")
        return
    if RUN.exists():
        say("a previous cluster left state behind: cleaning it first")
        down.down(compare=False)
    host.preflight()
    started = time.monotonic()
    with Step("Kubernetes components (built once, then cached)"):
        t = tools()
    if not (IMAGES / "pause.tar").exists():
        with Step("the pod sandbox image (scripts/k8s/images.sh pause)"):
            sh("bash", ROOT / "scripts" / "k8s" / "images.sh", "pause", timeout=900)
    RUN.mkdir(parents=True, exist_ok=True)
    RUN.chmod(0o700)  # tokens, kubeconfigs and keys live below it
    if host.load_br_netfilter():
        (RUN / host.MODULES_LOADED).write_text("br_netfilter\n")
    (RUN / "host-before.json").write_text(json.dumps(host.host_state(), indent=1))
    try:
        bring_up(t)
    except BaseException as e:  # noqa: BLE001 - leave nothing half-up behind
        print(f"\n\033[1;31m[k8s] up failed:\033[0m {e}", file=sys.stderr, flush=True)
        if os.environ.get("LOOMLAB_K8S_KEEP_ON_FAILURE") == "1":
            fail(f"left running for inspection (LOOMLAB_K8S_KEEP_ON_FAILURE=1); logs in {RUN / 'logs'}")
        down.down(compare=False)
        fail(f"up failed and was undone; the components' logs are in {LAST_LOGS}")
    say(
        f"Ready in {time.monotonic() - started:.1f} s: node {NODE} ({NODE_IP}),"
        f" Services {SERVICE_CIDR}, pods {POD_CIDR}"
    )
    say("steps: " + ", ".join(f"{w.split(' (')[0]} {s:.1f} s" for w, s in Step.timings))
    say(f"components' memory (RSS) with the node idle: {components_rss_mb():.0f} MiB")
    say(f'export KUBECONFIG={KUBECONFIG}    (or: eval "$(./lab k8s env)")')


def bring_up(t: dict):
    """Long because it is the sequence of `up`'s timed steps, each with its own readiness check."""
    with Step(f"network: bridge {BRIDGE} {NODE_IP}/{POD_CIDR.prefixlen} (its MAC fixed), forwarding confined to it"):
        network.network_up()
    with Step("certificates, tokens, kubeconfigs, component configuration"):
        pki.make_pki(RUN / "pki")
        pki.make_kubeconfigs()
        configs.write_configs()
    with Step("etcd on 127.0.0.1:2379, TLS, a client certificate required"):
        start_etcd(t)
    with Step(f"kube-apiserver on {NODE_IP}:{API_PORT}"):
        cluster = start_apiserver(t)
    with Step("Secrets encrypted at rest (a Secret read raw from etcd)"):
        if not etcd.secrets_sealed(cluster):
            raise RuntimeError("a Secret is stored in etcd as written, not sealed")
    with Step(f"registry on {REGISTRY}, untagged images collected (the node pulls the lab's images from it)"):
        start_registry(t)
    with Step("containerd (own root, state and socket) and the pod sandbox image"):
        start("containerd", ["containerd", "--config", RUN / "containerd" / "config.toml"])
        if not proc.wait_until(
            lambda: SOCK.exists() and sh("ctr", "--address", SOCK, "version", check=False, timeout=5).returncode == 0,
            30,
        ):
            raise RuntimeError("containerd did not start")
        # Imported at every `up`: containerd's sandbox_image is never pulled here (its store is new
        # each time); every other image comes from the cluster's registry.
        sh(*CTR, "images", "import", IMAGES / "pause.tar", timeout=600)
    with Step("controller-manager, scheduler, kubelet, kube-proxy, CoreDNS, metrics-server"):
        start_node(t)
    with Step(f"node {NODE} Ready"):

        def node_ready():
            # Ready, and the node controller has lifted the not-ready taint: pods can be scheduled.
            node = cluster.json(f"/api/v1/nodes/{NODE}", 2)
            return condition(node, "Ready") and not node["spec"].get("taints")

        if not proc.wait_until(node_ready, 90, 0.25):
            raise RuntimeError(f"the node did not become Ready (see {RUN / 'logs' / 'kubelet.log'})")
    with Step("the node's services refused from outside this host (from a namespace on a veth)"):
        refused, control = outside.node_refused_from_outside()
        if not (refused and control):
            raise RuntimeError(
                f"from outside: the API server {'refused' if refused else 'answered'}, the control "
                f"listener {'answered' if control else 'did not answer'} (both must hold)"
            )
    with Step("NetworkPolicies enforced (kube-router, firewall only)"):
        start_policy_engine(t)
    with Step("metrics API (metrics-server behind the aggregation layer) available"):

        def available():
            service = cluster.json("/apis/apiregistration.k8s.io/v1/apiservices/v1beta1.metrics.k8s.io", 2)
            return condition(service, "Available")

        if not proc.wait_until(available, 90, 0.5):
            raise RuntimeError(f"metrics.k8s.io not available (see {RUN / 'logs' / 'metrics-server.log'})")
    with Step("cluster DNS answers kubernetes.default.svc.cluster.local"):
        if not proc.wait_until(
            lambda: API_SERVICE_IP in dns_query("kubernetes.default.svc.cluster.local", NODE_IP), 60, 0.25
        ):
            raise RuntimeError(f"CoreDNS did not answer (see {RUN / 'logs' / 'coredns.log'})")
    with Step("Prometheus (deploy/k8s/monitoring) Ready, every target up"):
        found = monitoring.start()
        say("Prometheus scrapes " + ", ".join(f"{t['pod']} ({t['health']})" for t in found))


def start_policy_engine(t: dict):
    """kube-router reads the node it runs on: started once the node is registered; up when its
    top-level chain is in the filter table's FORWARD."""
    router = start("kube-router", flags.kube_router(t))

    def firewall_up():
        if router.poll() is not None:
            raise RuntimeError(f"kube-router exited with {router.returncode} (see {RUN / 'logs' / 'kube-router.log'})")
        return "-j KUBE-ROUTER-FORWARD" in sh("iptables", "-S", "FORWARD", check=False).stdout

    if not proc.wait_until(firewall_up, 60, 0.5):
        raise RuntimeError(f"kube-router set up no firewall (see {RUN / 'logs' / 'kube-router.log'})")


def start_etcd(t: dict):
    server = start("etcd", flags.etcd(t))
    if not proc.wait_until(etcd.healthy, 30, 0.2, give_up=lambda: server.poll() is not None):
        raise RuntimeError(f"etcd did not become healthy (see {RUN / 'logs' / 'etcd.log'})")
    if not etcd.refuses_a_client_without_a_certificate():
        raise RuntimeError("etcd serves a client that shows no certificate")


def start_registry(t: dict):
    """Serves the registry's storage, kept across down/up, after collecting what no tag names any
    more: every push of a rebuilt image leaves its predecessor's layers behind (gigabytes a week),
    and a full disk is a node the kubelet taints and evicts from. A registry that holds no image yet
    (a first `up`) has nothing to collect, and the collector refuses storage without repositories."""
    REGISTRY_ROOT.mkdir(parents=True, exist_ok=True)
    if (REGISTRY_ROOT / "docker/registry/v2/repositories").is_dir():
        sh(t["REGISTRY"], "garbage-collect", "--delete-untagged", RUN / "registry.yml", timeout=300)
    registry = start("registry", [t["REGISTRY"], "serve", RUN / "registry.yml"])
    if not proc.wait_http(f"http://{REGISTRY}/v2/", 30, alive=lambda: registry.poll() is None):
        raise RuntimeError(f"the registry did not answer (see {RUN / 'logs' / 'registry.log'})")


def start_apiserver(t: dict) -> Kube:
    start("kube-apiserver", flags.apiserver(t))
    cluster = api()
    if not proc.wait_until(lambda: cluster.get("/readyz", 2) == b"ok", 90, 0.2):
        raise RuntimeError(f"kube-apiserver not ready (see {RUN / 'logs' / 'kube-apiserver.log'})")
    return cluster


def start_node(t: dict):
    """The controllers, the node's agents and the cluster's DNS, and the objects every run needs."""
    start("kube-controller-manager", flags.controller_manager(t))
    start("kube-scheduler", flags.scheduler(t))
    start("kubelet", flags.kubelet(t))
    start("kube-proxy", flags.kube_proxy(t))
    kubectl("apply", "-f", "-", input=json.dumps(configs.cluster_objects()))
    start("coredns", flags.coredns(t))
    start("metrics-server", flags.metrics_server(t))
