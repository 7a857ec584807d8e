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
    mangle = ("iptables", "-t", "mangle")
    if sh(*mangle, "-n", "-L", "LOOMLAB-FORWARD", check=False).returncode != 0:
        sh(*mangle, "-N", "LOOMLAB-FORWARD")
        sh(*mangle, "-A", "LOOMLAB-FORWARD", "!", "-i", BRIDGE, "-j", "DROP")
        sh(*mangle, "-A", "LOOMLAB-FORWARD", "!", "-o", BRIDGE, "-j", "DROP")
    while sh(*mangle, "-D", "FORWARD", "-j", "LOOMLAB-FORWARD", check=False).returncode == 0:
        pass
    sh(*mangle, "-I", "FORWARD", "1", "-j", "LOOMLAB-FORWARD")


def refuse_from_outside():
    """The node's services (API server, kubelet, CoreDNS, metrics-server) listen on the bridge's
    address; Linux would answer a packet for it on any interface, so a machine on the LAN that
    routes the pod range here could reach them. Packets for that address are accepted only from
    this host (lo) and the pods (the bridge); the rest is dropped in the mangle table's INPUT,
    before any component's rule."""
    mangle = ("iptables", "-t", "mangle")
    if sh(*mangle, "-n", "-L", "LOOMLAB-INPUT", check=False).returncode != 0:
        sh(*mangle, "-N", "LOOMLAB-INPUT")
        sh(*mangle, "-A", "LOOMLAB-INPUT", "-i", "lo", "-j", "RETURN")
        sh(*mangle, "-A", "LOOMLAB-INPUT", "-i", BRIDGE, "-j", "RETURN")
        sh(*mangle, "-A", "LOOMLAB-INPUT", "-j", "DROP")
    while sh(*mangle, "-D", "INPUT", "-d", NODE_IP, "-j", "LOOMLAB-INPUT", check=False).returncode == 0:
        pass
    sh(*mangle, "-I", "INPUT", "1", "-d", NODE_IP, "-j", "LOOMLAB-INPUT")
