"""k6 as an engine: a load's script (k6/*.js) run with the load's environment in one process, its
raw summary read as the lab's figures."""

from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from loomlab import ROOT, LabError

from ...measuring.figures import k6_generated
from ...planning.lane import Lane
from ...planning.loads import UNIFORM, Load, on_cpus
from ...planning.settings import RunSettings
from . import Generated
from .loadgen import run_env


@dataclass(frozen=True)
class K6:
    path: str
    name: str = "k6"

    def version(self) -> str:
        """`k6 version`'s first part, e.g. "k6 v1.8.1"."""
        return subprocess.run([self.path, "version"], capture_output=True, text=True).stdout.split("(")[0].strip()

    def prepare(self, load: Load, lane: Lane, warmup: bool) -> None:
        """Nothing: k6's scripts make their requests as they go; but they pace arrivals only evenly."""
        if load.env.get("ARRIVALS", UNIFORM) != UNIFORM:
            raise LabError(f"{load.name}: k6's scripts pace arrivals only evenly; run it with --engine loadgen")

    def generate(
        self, load: Load, lane: Lane, base_url: str, out: Path, label: str, settings: RunSettings, warmup: bool
    ) -> Generated:
        env = k6_env(load, lane, base_url, out, label, settings, warmup)
        try:
            run = subprocess.run(
                on_cpus([self.path, "run", "--quiet", "--no-color", str(ROOT / load.script)], load.k6_cpus),
                env=env,
                cwd=ROOT,
                capture_output=True,
                text=True,
                timeout=load.timeout_s,
            )
        except subprocess.TimeoutExpired as e:
            raise LabError(f"k6 run '{label}' exceeded {load.timeout_s} s and was stopped") from e
        out.with_suffix(".log").write_text(run.stdout + run.stderr)
        if not out.exists():
            raise LabError(f"k6 run '{label}' wrote no summary (exit {run.returncode}):\n{run.stderr[-2000:]}")
        return Generated(k6_generated(load, json.loads(out.read_text())), run.returncode)


def k6_env(load: Load, lane: Lane, base_url: str, out: Path, label: str, settings: RunSettings, warmup: bool) -> dict:
    """k6's environment for one run: the load's parameters (its warm-up's), the column, where to write
    its summary, and its web dashboard's export where --dashboards asks for one."""
    env = {**os.environ, **run_env(load, lane, warmup)}
    env.update({"BASE_URL": base_url, "SUMMARY_JSON": str(out), "RUN_LABEL": label})
    if not warmup and (settings.dashboards == "all" or (settings.dashboards == "auto" and load.dashboard)):
        env.update(
            {
                "K6_WEB_DASHBOARD": "true",
                "K6_WEB_DASHBOARD_EXPORT": str(out.with_suffix(".html")),
                "K6_WEB_DASHBOARD_PORT": "-1",
                # k6 skips the export of a run shorter than a few periods (default 10 s).
                "K6_WEB_DASHBOARD_PERIOD": "1s",
            }
        )
    return env
