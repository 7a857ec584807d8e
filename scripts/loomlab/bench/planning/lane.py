"""What the lab compares: a Lane, one column of a report. A lane is an execution model (the service's
worker, virtual, virtual-loop or reactive mode, or the reference server beside it), the clients its requests
await, one setting changed from the suite's (a knob: JVM flags, another build, a cgroup, the
minimal application) and the JDK it runs on where a run compares JDKs. Every driver builds lanes
once; the column's name (`key`) is what reports, results.json and the command line print, and
`parse` reads it back only at those edges. Standard library only."""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace

from loomlab import LabError

# The execution models of the service, and the reference server (bench/reporting/reference.py): no mode of
# the service but a minimal server beside it, a column after the modes.
WORKER, VIRTUAL, VIRTUAL_LOOP, REACTIVE, REFERENCE = "worker", "virtual", "virtual-loop", "reactive", "reference"
# The clients a lane's requests await, where not its mode's own: RX, a virtual thread awaiting the
# reactive clients (k6 CLIENTS=reactive); OFFLOAD, the reactive mode with its CPU work moved off the
# event loop to the worker pool (k6 OFFLOAD=true).
RX, OFFLOAD = "rx", "offload"
CLIENTS = {RX: (VIRTUAL, {"CLIENTS": "reactive"}), OFFLOAD: (REACTIVE, {"OFFLOAD": "true"})}


@dataclass(frozen=True)
class Knob:
    """One setting a user tunes, changed from the suite's: the service's environment and JVM flags
    it adds, and what it changes in /api/info's pools (so a column's bound is its own)."""

    env: dict = field(default_factory=dict)
    jvm_flags: tuple[str, ...] = ()
    pools: dict = field(default_factory=dict)
    jar: str = ""  # another build of the service (./lab ab REV: that commit's quarkus-run.jar)
    # A jar without the service's management endpoints (the minimal application, procstat.py): ready at
    # its first answer, its CPU, RSS and threads read from /proc.
    bare: bool = False
    # A cgroup of its own, as a pod's container (quota.py): its CPU quota (0: none), or None: no cgroup.
    quota_cpus: float | None = None


@dataclass(frozen=True, repr=False)
class Lane:
    """One column: equal lanes are one column (the knob itself does not take part: its name does)."""

    mode: str
    client: str = ""  # "": the mode's own clients; RX or OFFLOAD
    setting: str = ""  # a knob column's name ("carriers=1", "aot"); "": the mode's default column
    knob: Knob = field(default_factory=Knob, compare=False)
    jdk: int | None = None  # the JDK its service runs on where a run compares JDKs; None: the run's

    def __post_init__(self):
        if self.client and CLIENTS.get(self.client, ("",))[0] != self.mode:
            raise ValueError(f"no {self.mode} lane awaits {self.client!r} clients")

    def __repr__(self) -> str:
        return f"Lane({self.key!r}" + ("" if self.jdk is None else f", jdk={self.jdk}") + ")"

    @property
    def key(self) -> str:
        """The column's name: "virtual", "virtual+rx", "virtual[carriers=1]" (no JDK: a run's
        results are kept per JDK)."""
        return self.mode + (f"+{self.client}" if self.client else "") + (f"[{self.setting}]" if self.setting else "")

    @property
    def default(self) -> Lane:
        """The mode's default column that a knob column is compared with (itself for a default one)."""
        return Lane(self.mode, self.client)

    @property
    def is_default(self) -> bool:
        """A mode's default column of the service: what a section's pools and bounds are read from."""
        return not self.setting and self.mode != REFERENCE

    @property
    def reactive_clients(self) -> bool:
        """Whether its requests await the reactive clients (their own pool and bulkhead)."""
        return self.mode == REACTIVE or self.client == RX

    def with_setting(self, setting: str, knob: Knob) -> Lane:
        return replace(self, setting=setting, knob=knob)

    def on(self, jdk: int | None) -> Lane:
        return replace(self, jdk=jdk)

    def k6_env(self) -> dict:
        """The environment that selects this column in a k6 script (and loadgen's request): its MODE,
        and CLIENTS or OFFLOAD for the clients."""
        return {"MODE": self.mode, **(CLIENTS[self.client][1] if self.client else {})}

    @classmethod
    def parse(cls, key: str) -> Lane:
        """The lane a column's name names, at the edges only (--mode, a Job's MODES, results.json);
        a knob column read back this way has its name but not its setting. A name that is none is
        refused in words (LabError): it comes from a file or a Job's environment, not from the code."""
        m = re.fullmatch(r"([a-z]+(?:-[a-z]+)?)(?:\+([a-z]+))?(?:\[(.+)\])?", key)
        if not m:
            raise LabError(f"not a column's name: {key!r} (a mode, mode+clients or mode[setting], e.g. virtual+rx)")
        return cls(m[1], m[2] or "", m[3] or "")


# The service's columns without a setting, in report order.
MODES = (
    Lane(WORKER),
    Lane(VIRTUAL),
    Lane(VIRTUAL_LOOP),
    Lane(REACTIVE),
    Lane(REACTIVE, OFFLOAD),
    Lane(VIRTUAL, RX),
)
# Their names, as a report's results are keyed.
MODE_COLUMNS = tuple(lane.key for lane in MODES)
# The models that hold a thread per request: what the JDBC-only variants compare.
THREADED = (Lane(WORKER), Lane(VIRTUAL), Lane(VIRTUAL_LOOP))
REFERENCE_LANE = Lane(REFERENCE)
