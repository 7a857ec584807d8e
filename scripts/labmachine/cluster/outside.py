"""`up`'s proof that the node's services are refused from outside this host: a network namespace on
a veth pair (not the bridge) stands in for a machine on the LAN that routes the pod range here. From
it, the API server on the bridge's address must not answer, while a listener on the veth's own host
address does (so the refusal is the rule's, not a broken path)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading

from loomlab import proc

from .settings import API_PORT, NODE_IP, sh

HOST_END, OUTSIDE_END = "loomlab-out0", "loomlab-out1"
HOST_IP, OUTSIDE_IP = "169.254.77.1", "169.254.77.2"

CONNECT = (
    "import socket, sys\n"
    "try:\n"
    "    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=float(sys.argv[3])).close()\n"
    "except OSError:\n"
    "    sys.exit(1)\n"
)


class Outside:
    """A network namespace of its own (unshare: no name, no mount left on the host), held by a
    sleeping process and wired to this host by a veth pair; gone with the process and the pair."""

    def __init__(self):
        self.holder = subprocess.Popen(["unshare", "--net", "sleep", "300"])
        ours = os.readlink("/proc/self/ns/net")
        if not proc.wait_until(lambda: os.readlink(f"/proc/{self.holder.pid}/ns/net") != ours, 10, 0.05):
            self.close()
            raise RuntimeError("unshare --net made no network namespace")
        self.inside = ("nsenter", "-t", str(self.holder.pid), "-n")

    def wire(self):
        sh("ip", "link", "add", HOST_END, "type", "veth", "peer", "name", OUTSIDE_END, "netns", self.holder.pid)
        sh("ip", "addr", "add", f"{HOST_IP}/30", "dev", HOST_END)
        sh("ip", "link", "set", HOST_END, "up")
        sh(*self.inside, "ip", "addr", "add", f"{OUTSIDE_IP}/30", "dev", OUTSIDE_END)
        sh(*self.inside, "ip", "link", "set", OUTSIDE_END, "up")
        sh(*self.inside, "ip", "route", "add", NODE_IP, "via", HOST_IP)

    def connects(self, address: str, port: int, timeout: float = 3) -> bool:
        """Whether a TCP connection from here to address:port is established."""
        argv = (*self.inside, sys.executable, "-c", CONNECT, address, str(port), str(timeout))
        return sh(*argv, check=False, timeout=timeout + 10).returncode == 0

    def close(self):
        proc.stop(self.holder, 5)
        sh("ip", "link", "del", HOST_END, check=False)  # gone with the namespace already, as a rule


def node_refused_from_outside() -> tuple[bool, bool]:
    """(the API server refused from outside, the control listener reached): both True is the proof."""
    outside = Outside()
    listener: socket.socket | None = None  # bound once the veth has its address
    try:
        outside.wire()
        listener = socket.create_server((HOST_IP, 0))
        threading.Thread(target=_accept_one, args=(listener,), daemon=True).start()
        control = outside.connects(HOST_IP, listener.getsockname()[1])
        return not outside.connects(NODE_IP, API_PORT), control
    finally:
        if listener is not None:
            listener.close()
        outside.close()


def _accept_one(listener: socket.socket):
    try:
        conn, _ = listener.accept()
        conn.close()
    except OSError:
        pass
