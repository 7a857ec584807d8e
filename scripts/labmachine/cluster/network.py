"""The node's network on this host: the pods' bridge with the node's address and a fixed hardware
address, forwarding, and the rules that keep pods' traffic in and the outside out."""

from __future__ import annotations

from pathlib import Path

from .host import write_sysctl
from .settings import BRIDGE, NODE_IP, POD_CIDR, sh


def network_up():
    """The bridge with the node's address, forwarding, and the rule that keeps pods' traffic in."""
    if sh("ip", "link", "show", BRIDGE, check=False).returncode != 0:
        sh("ip", "link", "add", BRIDGE, "type", "bridge")
    pin_address()
    sh("ip", "addr", "replace", f"{NODE_IP}/{POD_CIDR.prefixlen}", "dev", BRIDGE)
    sh("ip", "link", "set", BRIDGE, "up")
    write_sysctl("net.ipv4.ip_forward", "1")
    write_sysctl("net.bridge.bridge-nf-call-iptables", "1")
    confine()
    refuse_from_outside()


SYS_NET = Path("/sys/class/net")
NET_ADDR_SET = "3"  # addr_assign_type of an address someone set (include/uapi/linux/netdevice.h)


def pin_address():
    """The bridge keeps the hardware address it was made with. Linux gives a bridge whose address
    nobody set the lowest of its ports', so a pod's veth coming or going may change the gateway's
    MAC under every other pod: those that cached the old one lose their way out (the cluster's DNS,
    every Service) until their ARP entry expires, 20 to 50 s measured, mid-run. Setting the address
    it has makes it chosen, which the kernel keeps."""
    device = SYS_NET / BRIDGE
    if (device / "addr_assign_type").read_text().strip() != NET_ADDR_SET:
        sh("ip", "link", "set", BRIDGE, "address", (device / "address").read_text().strip())


def confine():
    """Forwarded packets must enter and leave through the bridge: pod to pod, and pod to Service
    (DNAT'ed back onto the bridge). Anything else forwarded (a pod reaching out, the outside
    reaching in) is dropped, in the mangle table's FORWARD chain: the kernel walks it before the
    filter table's, where kube-proxy and kube-router put their jumps first and ACCEPT what their
    rules admit (kube-router: what a NetworkPolicy allows), so no component's rule comes before it."""
    first_in_mangle(
        "FORWARD", "LOOMLAB-FORWARD", [("!", "-i", BRIDGE, "-j", "DROP"), ("!", "-o", BRIDGE, "-j", "DROP")]
    )


def refuse_from_outside():
    """The node's services (API server, kubelet, CoreDNS, metrics-server) listen on the bridge's
    address; Linux would answer a packet for it on any interface, so a machine on the LAN that
    routes the pod range here could reach them. Packets for that address are accepted only from
    this host (lo) and the pods (the bridge); the rest is dropped in the mangle table's INPUT,
    before any component's rule."""
    rules = [("-i", "lo", "-j", "RETURN"), ("-i", BRIDGE, "-j", "RETURN"), ("-j", "DROP")]
    first_in_mangle("INPUT", "LOOMLAB-INPUT", rules, match=("-d", NODE_IP))


MANGLE = ("iptables", "-t", "mangle")


def first_in_mangle(hook: str, chain: str, rules: list[tuple[str, ...]], match: tuple[str, ...] = ()):
    """The mangle table's `chain` made of `rules` (where it is not there yet), and exactly one jump
    to it, first in `hook`, for the packets `match` selects (an earlier `up`'s jumps removed)."""
    if sh(*MANGLE, "-n", "-L", chain, check=False).returncode != 0:
        sh(*MANGLE, "-N", chain)
        for rule in rules:
            sh(*MANGLE, "-A", chain, *rule)
    jump = (*match, "-j", chain)
    while sh(*MANGLE, "-D", hook, *jump, check=False).returncode == 0:
        pass
    sh(*MANGLE, "-I", hook, "1", *jump)
