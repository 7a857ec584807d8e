"""async-profiler on a running service JVM: its agent attached through jcmd for one run, CPU and
allocation samples in one JFR recording, and the project's converter turning that recording into
flame graphs (HTML) and collapsed stacks (what flames.py reads). scripts/async-profiler.sh fetches
both artifacts once, at the version it names."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from loomlab import ROOT, LabError

# CPU samples every millisecond of a thread's CPU time: a 2 s A3 run on two cores gives thousands.
CPU_INTERVAL_NS = 1_000_000
# One allocation sample per 512 KiB allocated (TLAB-driven): the bytes per frame are estimates.
ALLOC_INTERVAL_BYTES = 512 * 1024
# JVM flags that let the profiler see inlined frames of code compiled before it attached (the JIT
# keeps debug information at every instruction, not only at safepoints); the same in every mode.
JVM_FLAGS = ("-XX:+UnlockDiagnosticVMOptions", "-XX:+DebugNonSafepoints")
# What a recording is converted into (Profiler.convert): flame graphs and collapsed stacks.
KINDS = ("cpu_html", "alloc_html", "cpu", "alloc")


def agent_options(action: str, jfr: Path | None = None) -> str:
    """The agent's argument string (`start,event=cpu,...` or `stop`), quoted for jcmd: its parser
    splits an argument at `=` into a name and a value, and a quoted one stays whole."""
    if action == "stop":
        return "stop"
    options = f"start,event=cpu,interval={CPU_INTERVAL_NS},alloc={ALLOC_INTERVAL_BYTES},jfr,file={jfr}"
    return f'"{options}"'


@dataclass(frozen=True)
class Profiler:
    """The agent library, the converter, and the JDK's jcmd and java that drive them."""

    library: Path
    converter: Path
    jdk_bin: Path

    @classmethod
    def fetch(cls, java: str) -> Profiler:
        """The cached artifacts (fetched on first use by scripts/async-profiler.sh) and the JDK of `java`."""
        folder = subprocess.run(
            ["bash", str(ROOT / "scripts/async-profiler.sh")], check=True, capture_output=True, text=True
        ).stdout.strip()
        return cls(Path(folder) / "libasyncProfiler.so", Path(folder) / "jfr-converter.jar", Path(java).parent)

    def jcmd(self, pid: int, options: str) -> None:
        done = subprocess.run(
            [str(self.jdk_bin / "jcmd"), str(pid), "JVMTI.agent_load", str(self.library), options],
            capture_output=True,
            text=True,
            timeout=60,
        )
        # jcmd exits 0 even when the agent refused: the agent's own code is on the last line.
        if done.returncode != 0 or not done.stdout.rstrip().endswith("return code: 0"):
            raise LabError(f"async-profiler via jcmd {pid} ({options}) failed: {done.stdout}{done.stderr}")

    @contextmanager
    def recording(self, pid: int, jfr: Path) -> Iterator[Path]:
        """CPU and allocation samples of the JVM `pid` while the block runs, written to `jfr`."""
        jfr.parent.mkdir(parents=True, exist_ok=True)
        self.jcmd(pid, agent_options("start", jfr))
        try:
            yield jfr
        finally:
            self.jcmd(pid, agent_options("stop"))

    def convert(self, jfr: Path, kinds: tuple[str, ...] = KINDS) -> dict[str, Path]:
        """The recording as flame graphs (cpu.html, alloc.html) and collapsed stacks: CPU samples
        with the converter's category (GC, JIT, VM, ...) as their root frame, bytes allocated per
        stack; those of `kinds`. Simple class names keep the frames readable; lambdas lose the ids
        that change every run."""
        outputs = {
            "cpu_html": ("--cpu", ["--title", f"CPU {jfr.stem}"], ".cpu.html"),
            "alloc_html": ("--alloc", ["--title", f"Alloc {jfr.stem}"], ".alloc.html"),
            "cpu": ("--cpu", ["--classify", "-o", "collapsed"], ".cpu.collapsed"),
            "alloc": ("--alloc", ["--total", "-o", "collapsed"], ".alloc.collapsed"),
        }
        targets = {kind: jfr.with_suffix(outputs[kind][2]) for kind in kinds}
        converter = [str(self.jdk_bin / "java"), "-jar", str(self.converter)]
        for kind, target in targets.items():
            event, options, _ = outputs[kind]
            subprocess.run(
                [*converter, event, "--simple", "--norm", *options, str(jfr), str(target)],
                check=True,
                capture_output=True,
                timeout=300,
            )
        return targets
