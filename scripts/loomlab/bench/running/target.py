"""The seams a run is measured through: where a lane's service runs (Where: local processes,
runner.LocalJvm; a cluster's Deployments, incluster.core.measure.ClusterWhere) and the service it
starts there (ServiceUnderTest: runner.Service, incluster.core.measure.ClusterService); rounds.measure
drives either."""

from __future__ import annotations

from pathlib import Path
from typing import Protocol

from ..planning.lane import Lane
from ..planning.loads import Load, Suite
from ..planning.settings import RunSettings


class ServiceUnderTest(Protocol):
    """One mode's service, started with a suite's configuration."""

    # Where it runs ("local JVM", or the cluster variant's name), as the report prints it.
    environment: str
    # The base URL k6 sends its requests to.
    url: str

    def wait_ready(self, timeout_s: float = ...) -> None:
        """Returns once /q/health/ready answers; exits the run when it never does."""

    def get(self, path: str, timeout: float = ...) -> str:
        """The body of GET `path` on the service (a pod of it, in the cluster)."""

    def info(self) -> dict:
        """/api/info: JDK, image kind, pools and bounds (printed in every report)."""

    def sample(self) -> dict:
        """One scrape of /q/metrics, as the sampled figures (raises OSError when it fails)."""

    def run(self, load: Load, lane: Lane, out: Path, label: str, settings: RunSettings, warmup: bool = False) -> dict:
        """One run of `load` in `lane`, its raw summary at `out`: the run's figures."""

    def stop(self) -> None:
        """Stops the service (the local JVM, or the cluster's pods scaled down)."""


class Where(Protocol):
    """Where a lane's services run: it starts one for a suite and a lane."""

    @property
    def environment(self) -> str:
        """As the report prints it ("local JVM", or the cluster variant's name)."""

    def start(
        self, suite: Suite, lane: Lane, tag: str, settings: RunSettings, out: Path, slot: int = 0
    ) -> ServiceUnderTest:
        """The lane's service with the suite's configuration, started (a ServiceUnderTest; its files
        named by `tag`); `slot` numbers the services up side by side."""
