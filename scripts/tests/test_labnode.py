"""The seam between the harness's experiments and the lab's own node (incluster/core/node.py): the
node is used only where the lab's cluster is the run's target, an experiment that needs it says so
elsewhere, and the machinery's node is one (labmachine.cluster.node)."""

import os
import subprocess
import sys
import unittest
from pathlib import Path
from types import SimpleNamespace
from unittest import mock

from labmachine.cluster.node import ThisNode
from loomlab import LabError
from loomlab.incluster.core import node
from loomlab.incluster.experiments import failover
from loomlab.labcluster import KUBECONFIG


class RecordingNode:
    def __init__(self):
        self.killed: list[str] = []

    def install_keda(self) -> None:
        pass

    def policy_engine(self, on: bool) -> float:
        return 0.0

    def policy_engine_usage(self) -> tuple[float, float]:
        return 0.0, 0.0

    def kill(self, container_id: str) -> None:
        self.killed.append(container_id)


class LabNodeTest(unittest.TestCase):
    def test_the_node_is_the_lab_cluster_s_alone(self):
        lab = RecordingNode()
        with mock.patch.object(node, "lab_cluster_up", return_value=True):
            self.assertIs(node.on_lab_cluster(lab, None), lab)
            self.assertIs(node.on_lab_cluster(lab, str(KUBECONFIG)), lab)
            self.assertIsNone(node.on_lab_cluster(lab, "/elsewhere/kubeconfig"))
            self.assertIsNone(node.on_lab_cluster(None, None))
        with mock.patch.object(node, "lab_cluster_up", return_value=False):
            self.assertIsNone(node.on_lab_cluster(lab, None))

    def test_what_needs_the_node_says_so_where_there_is_none(self):
        with mock.patch.object(node, "lab_cluster_up", return_value=True):
            with self.assertRaisesRegex(LabError, r"failover kills.*\./lab k8s up"):
                node.needed(None, None, "failover kills")
            with self.assertRaises(LabError):
                node.needed(RecordingNode(), "/elsewhere/kubeconfig", "x")

    def test_failover_kills_the_pod_s_container_through_the_node(self):
        lab = RecordingNode()
        pod = {"status": {"containerStatuses": [{"containerID": "containerd://abc123"}]}}
        failover.kill(SimpleNamespace(pod=lambda name: pod), "jvm-0", lab)
        self.assertEqual(lab.killed, ["abc123"])

    def test_the_lab_cluster_s_paths_follow_the_lab_s_variables(self):
        # Read once, when the harness is imported: a fresh interpreter with the variables set.
        code = "from loomlab import labcluster as c; print(c.KUBECONFIG, c.IMAGES)"
        env = {**os.environ, "LOOMLAB_CACHE": "/c", "LOOMLAB_K8S_HOME": "/k"}
        cwd = Path(__file__).resolve().parents[1]
        out = subprocess.run([sys.executable, "-c", code], env=env, cwd=cwd, capture_output=True, text=True, check=True)
        self.assertEqual(out.stdout.split(), ["/k/run/admin.kubeconfig", "/c/images"])

    def test_the_machinery_s_node_is_one(self):
        # Its signatures are held by mypy where labmachine/experiments hands it to the harness.
        self.assertIsInstance(ThisNode(), node.LabNode)
        self.assertNotIsInstance(SimpleNamespace(kill=print), node.LabNode)


if __name__ == "__main__":
    unittest.main()
