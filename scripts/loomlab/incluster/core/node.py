"""The lab's own node, as the three experiments that act on it meet it: `autoscale --on queue`
installs KEDA there, `netpol --cost` turns its NetworkPolicy engine off and on between runs, and
`failover` kills a pod's container through its containerd. The lab's machinery gives one
(labmachine.cluster.node), and ./lab runs those experiments with it; against another cluster, or
without it, there is none, and what needs it says so."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from loomlab import LabError
from loomlab.kube import lab_cluster_up
from loomlab.labcluster import KUBECONFIG


@runtime_checkable
class LabNode(Protocol):
    def install_keda(self) -> None:
        """KEDA installed on the lab's cluster and serving external metrics (a no-op when it is)."""

    def policy_engine(self, on: bool) -> float:
        """The NetworkPolicy engine started (the seconds until every policy had its rules and its
        start-up syncs were over) or stopped with its rules taken away (0)."""

    def policy_engine_usage(self) -> tuple[float, float]:
        """The engine's CPU seconds so far and its resident memory (MiB); zeros when it is stopped."""

    def kill(self, container_id: str) -> None:
        """SIGKILL to a container of the node (containerd's id), as an out-of-memory kill would."""


def on_lab_cluster(node: LabNode | None, kubeconfig: str | None) -> LabNode | None:
    """`node` where the run's target is the lab's own cluster (up, and no other kubeconfig given);
    None elsewhere."""
    return node if node is not None and lab_cluster_up() and kubeconfig in (None, str(KUBECONFIG)) else None


def needed(node: LabNode | None, kubeconfig: str | None, what: str) -> LabNode:
    """The lab's node for an experiment that cannot run without it (`what` it does there)."""
    if lab := on_lab_cluster(node, kubeconfig):
        return lab
    raise LabError(f"{what}: it needs the lab's cluster up (./lab k8s up) and the run started by ./lab")
