"""The command line of the lab's cluster: up, down, status, env, registry (see __init__.py)."""

from __future__ import annotations

import sys

from loomlab import command, podstatus

from .api import NOT_YET, api
from .down import down
from .processes import components_rss_mb, running
from .settings import COMPONENTS, CTR, KUBECONFIG, NODE, REGISTRY_PREFIX, fail, sh
from .up import up


def status() -> bool:
    states = {n: running(n) for n in COMPONENTS}
    for n in COMPONENTS:
        print(f"  {n:<24} {'pid ' + str(states[n]) if states[n] else 'stopped'}")
    if not states["kube-apiserver"]:
        print("cluster: down")
        return False
    try:
        node = api().json(f"/api/v1/nodes/{NODE}", 3)
        ready = podstatus.condition(node, "Ready")
        print(f"node {NODE}: {'Ready' if ready else 'NotReady'}")
    except NOT_YET as e:
        print(f"node {NODE}: unknown ({e})")
        ready = False
    print(f"components' memory (RSS): {components_rss_mb():.0f} MiB")
    print(f"export KUBECONFIG={KUBECONFIG}")
    return ready and all(states.values())


def main(argv: list[str]):
    cmd = argv[0] if argv else ""
    if cmd == "up":
        up()
    elif cmd == "down":
        down()
    elif cmd == "status":
        sys.exit(0 if status() else 1)
    elif cmd == "node-images":
        if not running("containerd"):
            fail("the cluster is not up: ./lab k8s up")
        print(sh(*CTR, "images", "ls", "-q").stdout, end="")
    elif cmd == "registry":
        if not running("registry"):
            fail("the cluster is not up: ./lab k8s up")
        print(REGISTRY_PREFIX)
    elif cmd == "env":
        if not KUBECONFIG.exists():
            fail("no cluster: ./lab k8s up")
        print(f"export KUBECONFIG={KUBECONFIG}")
    else:
        fail("usage: lab k8s up|down|status|env|registry|node-images")


if __name__ == "__main__":
    command(main, sys.argv[1:])
