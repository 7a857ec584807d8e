"""`./lab k8s up | down | status | env | import`: a real single-node Kubernetes on this machine.

Modelled on Kubernetes' own hack/local-up-cluster.sh: one entry point, every knob an environment
variable with a default, PIDs and logs in one run directory, cleanup on failure; and on kind for
how it feels: one command up, one down, a kubeconfig to point at, nothing left behind. One file
per step, as kind has one per create action:

  settings.py   the knobs and paths, say/fail/sh/Step
  host.py       preflight, sysctls, kernel modules, the host snapshot and its comparison
  network.py    the bridge (its hardware address fixed), forwarding confined to it
  pki.py        certificates, tokens, kubeconfigs
  configs.py    the components' configuration, rendered from templates/; the cluster's base objects
  processes.py  starting, finding and stopping the components; building them once (tools.sh)
  api.py        the API server (the harness's Kube, the admin's kubeconfig), kubectl, one DNS query
  up.py, down.py, __main__.py (status, env, the command line)

Confinement: pods and Services live on a bridge the lab creates (LOOMLAB_K8S_BRIDGE) with the node
address on it; the API server, kubelet and DNS listen on that address or on loopback; forwarded
traffic that does not both enter and leave through the bridge is dropped, and nothing is
masqueraded out: only loopback and the lab's ranges ever receive traffic.

Knobs (environment): LOOMLAB_K8S_HOME (default $LOOMLAB_CACHE/k8s), LOOMLAB_K8S_POD_CIDR
(10.244.0.0/24), LOOMLAB_K8S_SERVICE_CIDR (10.96.0.0/24), LOOMLAB_K8S_BRIDGE (loomlab0),
LOOMLAB_K8S_NODE (loom-lab-node), LOOMLAB_K8S_KEEP_ON_FAILURE (1: leave a failed `up` running).
"""

from .api import api, dns_query, kubectl
from .host import compare_host, without_our_chains
from .settings import IMAGES, KUBECONFIG, NODE, ROOT

__all__ = ["api", "dns_query", "kubectl", "compare_host", "without_our_chains", "IMAGES", "KUBECONFIG", "NODE", "ROOT"]
