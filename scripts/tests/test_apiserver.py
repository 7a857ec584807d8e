"""verify's API server asks its discovery which kinds live outside a namespace once, and again only
after a CustomResourceDefinition has added a kind (the answer cannot change otherwise)."""

import subprocess
import tempfile
import unittest
from pathlib import Path

from labmachine.verify.apiserver import ApiServer

DISCOVERY = "namespaces  ns  v1  false  Namespace\nclusterroles  rbac.authorization.k8s.io/v1  false  ClusterRole\n"


class FakeKubectl:
    """Answers as kubectl would; counts the discovery calls."""

    def __init__(self):
        self.discoveries = 0
        self.kinds = DISCOVERY

    def __call__(self, *args, stdin=None) -> subprocess.CompletedProcess:
        if args[0] == "api-resources":
            self.discoveries += 1
            return subprocess.CompletedProcess(args, 0, self.kinds, "")
        return subprocess.CompletedProcess(args, 0, "", "")


def server_with(kubectl: FakeKubectl) -> ApiServer:
    server = object.__new__(ApiServer)  # no etcd or kube-apiserver: only the discovery's bookkeeping
    server._cluster_scoped = None
    server.kubectl = kubectl  # type: ignore[method-assign]
    return server


class ClusterScopedKinds(unittest.TestCase):
    def test_discovery_is_asked_once(self):
        kubectl = FakeKubectl()
        server = server_with(kubectl)
        self.assertEqual(server.cluster_scoped_kinds(), {"Namespace", "ClusterRole"})
        server.cluster_scoped_kinds().add("Pod")  # a caller's change reaches no one else
        self.assertEqual(server.cluster_scoped_kinds(), {"Namespace", "ClusterRole"})
        self.assertEqual(kubectl.discoveries, 1)

    def test_a_crd_makes_it_ask_again(self):
        kubectl = FakeKubectl()
        server = server_with(kubectl)
        server.cluster_scoped_kinds()
        added = "clustertriggerauthentications  keda.sh/v1alpha1  false  ClusterTriggerAuthentication\n"
        kubectl.kinds = DISCOVERY + added
        with tempfile.TemporaryDirectory() as tmp:
            crd = Path(tmp) / "crd.yaml"
            crd.write_text("metadata:\n  name: clustertriggerauthentications.keda.sh\n")
            server.crd(crd)
        self.assertIn("ClusterTriggerAuthentication", server.cluster_scoped_kinds())
        self.assertEqual(kubectl.discoveries, 2)


if __name__ == "__main__":
    unittest.main()
