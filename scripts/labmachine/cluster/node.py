"""The lab's node as the harness's experiments act on it (loomlab.incluster.core.node.LabNode):
KEDA installed, the NetworkPolicy engine switched, a container killed through the node's
containerd."""

from __future__ import annotations

from loomlab.incluster.core.node import LabNode

from . import keda, policyengine
from .settings import CTR, sh


class ThisNode:
    """This machine's node of the lab's cluster (its steps are this package's)."""

    def install_keda(self) -> None:
        keda.install()

    def policy_engine(self, on: bool) -> float:
        if on:
            return policyengine.on()
        policyengine.off()
        return 0.0

    def policy_engine_usage(self) -> tuple[float, float]:
        return policyengine.usage()

    def kill(self, container_id: str) -> None:
        sh(*CTR, "tasks", "kill", "--signal", "SIGKILL", container_id)


def this_node() -> LabNode:
    """The node the experiments get (typed as their seam, so that mypy holds ThisNode to it)."""
    return ThisNode()
