"""What an in-cluster run measures, as one value built from its options (ClusterPlan.of): the
service variants with an image here, every workload's suite at the profile's scale on them (the
scale profile's pod counts included), and the time it should take."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from loomlab import ROOT, LabError
from loomlab.bench import api as bench
from loomlab.incluster.core import lanes, target
from loomlab.labcluster import LAB_IMAGES
from loomlab.table import fmt_duration


@dataclass(frozen=True)
class Variant:
    """A service variant the cluster runs: its Deployment and Service, the environment the report
    names, and the image the manifests name."""

    name: str
    environment: str
    image: str


VARIANTS = {
    "jvm": Variant("loom-lab-jvm", "in-cluster JVM", f"{LAB_IMAGES}/loom-lab-jvm:0.1.0"),
    "jvm-aot": Variant("loom-lab-jvm-aot", "in-cluster JVM+AOT", f"{LAB_IMAGES}/loom-lab-jvm-aot:0.1.0"),
    "jvm21": Variant("loom-lab-jvm21", "in-cluster JVM on JDK 21", f"{LAB_IMAGES}/loom-lab-jvm21:0.1.0"),
    "native": Variant("loom-lab-native", "in-cluster native", f"{LAB_IMAGES}/loom-lab-native:0.1.0"),
}

# The modes a variant's image cannot run: a native image has no module system to open for the JDK's
# virtual-thread builder that takes an executor, so its virtual-loop mode answers 501
# (execution/LoopCarriers); its runs would measure refusals.
UNFIT_MODES = {"native": frozenset({bench.VIRTUAL_LOOP})}

# Variants kept out of deploy/k8s/local (whose `kubectl apply -k` starts the JVM and JVM+AOT pods):
# their own kustomization beside it, applied with the stack when a run names them.
BESIDE_LOCAL = {"jvm21": "deploy/k8s/local/jdk21"}


def has_job(workload: str) -> bool:
    """Whether the workload has its k6 Job (deploy/k8s/jobs/<workload>), which an in-cluster run applies."""
    return (ROOT / "deploy/k8s/jobs" / workload / "kustomization.yaml").is_file()


def workload_suites(profile: str) -> dict:
    """Every workload's main suite at the profile's scale: smoke's, capacity's (sleep, product and
    db), or the bench's quick and rest profiles together (quick holds only the request-response
    workloads), and cpu's sweep (mixed)."""
    chosen = (profile,) if profile in ("smoke", "capacity") else ("quick", "rest", "cpu")
    return {s.workload: s for p in chosen for s in bench.suites(p) if not s.variant}


def variants(wanted: str, registry: str | None) -> tuple[list[str], list[str]]:
    """The variants asked for whose image was pushed to the registry, and why the others were skipped."""
    chosen, skipped = [], []
    for v in [v for v in wanted.split(",") if v]:
        if v not in VARIANTS:
            raise LabError(f"unknown variant {v} ({', '.join(VARIANTS)})")
        if registry and VARIANTS[v].image not in target.pushed(registry):
            hint = f"./lab k8s images --push {registry} {v}"
            if v == "native":
                hint = "a native executable needs GraalVM or Mandrel: ./lab native; neither exists on this machine"
            skipped.append(f"{v}: no image in {registry} ({hint})")
            continue
        chosen.append(v)
    return chosen, skipped


def suites_on_variants(args, chosen: list[str]) -> list[tuple[str, bench.Suite]]:
    """(variant, suite) pairs; the smoke profile (CI) runs sleep on every variant and the other
    workloads on the first one only."""
    wanted = [w for w in args.workload.split(",") if w] or ["sleep", "product"]
    suites = workload_suites(args.profile)
    unknown = [w for w in wanted if w not in suites]
    if unknown:
        raise LabError(f"unknown workload(s): {', '.join(unknown)}")
    without = [w for w in wanted if not has_job(w)]
    if without:
        raise LabError(
            f"no in-cluster Job for {', '.join(without)} (deploy/k8s/jobs/<workload>); "
            f"in-cluster workloads: {', '.join(w for w in suites if has_job(w))}"
        )
    return [
        (v, suites[w])
        for w in wanted
        for v in chosen
        if args.workload or args.profile != "smoke" or w == "sleep" or v == chosen[0]
    ]


def fit_modes(variant: str, suite: bench.Suite, modes: set[bench.Lane]) -> frozenset[bench.Lane]:
    """The modes of `modes` (empty: every one of the suite's) that the variant's image runs; empty
    again where it runs them all."""
    unfit = UNFIT_MODES.get(variant, frozenset())
    if not unfit:
        return frozenset(modes)
    wanted = modes or {lane.default for lane in bench.suite_lanes(suite, set()) if lane.default.is_default}
    return frozenset(lane for lane in wanted if lane.mode not in unfit)


def planned_seconds(plan: list[tuple[str, bench.Suite]], modes: set[bench.Lane], settings: bench.RunSettings) -> float:
    """The bench's plan plus a few seconds per Job: pod start, k6 start, log read."""

    def one(suite: bench.Suite, lane: bench.Lane) -> float:
        p = bench.planned_seconds(suite, lane, settings)
        jobs = sum(bench.runs_of(ld, settings, lane if lane in ld.lanes else None) + 2 for ld in suite.loads)
        return p["start"] + sum(p["runs"].values()) + 4 * jobs

    return sum(one(s, m) for _, s in plan for m in bench.suite_lanes(s, modes))


@dataclass(frozen=True)
class Block:
    """One suite measured on one variant's image: its lanes (the modes --mode keeps; empty: all),
    the pods each lane's Deployment runs, and the environment the report names."""

    variant: str
    suite: bench.Suite
    modes: frozenset[bench.Lane]
    pods: int
    environment: str


@dataclass(frozen=True)
class ClusterPlan:
    """A run's blocks and their planned seconds, the variants they run on and why others were left
    out. Interleaved rounds, as the local bench: every mode's pods up and warm side by side (a
    Deployment of the mode's own), each round every mode once, alone, the order rotated; the scale
    profile compares pod counts of one mode: blocks. k6's dashboard export is a local-file feature."""

    settings: bench.RunSettings
    variants: tuple[str, ...]
    skipped: tuple[str, ...]
    blocks: tuple[Block, ...]
    seconds: float

    @classmethod
    def of(cls, args) -> ClusterPlan:
        settings = bench.RunSettings.of(args, interleave=args.profile != "scale", dashboards="none")
        chosen, skipped = variants("jvm" if args.profile == "scale" else args.variants, args.registry)
        blocks, seconds = blocks_of(args, settings, chosen, bench.modes_named(args.mode))
        return cls(settings, tuple(chosen), tuple(skipped), tuple(blocks), seconds)

    @property
    def names(self) -> list[str]:
        """The variants' Deployments."""
        return [VARIANTS[v].name for v in self.variants]

    @property
    def beside(self) -> tuple[str, ...]:
        """The kustomizations the variants need beside deploy/k8s/local."""
        return tuple(BESIDE_LOCAL[v] for v in self.variants if v in BESIDE_LOCAL)

    def announce(self) -> None:
        """The plan: its blocks and their time, and the variants left out with why."""
        blocks = [
            f"{b.suite.workload} on {b.environment}" + (f" ({next(iter(b.modes)).key})" if len(b.modes) == 1 else "")
            for b in self.blocks
        ]
        print(
            f"plan: {len(self.blocks)} blocks ({', '.join(blocks)}); about {fmt_duration(self.seconds)} with pod"
            " start-ups and Jobs",
            flush=True,
        )
        for s in self.skipped:
            print(f"skipped: {s}", flush=True)


def blocks_of(
    args, settings: bench.RunSettings, chosen: list[str], modes: set[bench.Lane]
) -> tuple[list[Block], float]:
    """Every block on the chosen variants, and the planned seconds of them all."""
    if args.profile == "scale" and (args.jvm_column or args.quota_column):
        raise LabError("--profile scale compares pod counts of the modes' defaults: no knob column")
    if args.profile == "scale":
        on = VARIANTS["jvm"].environment
        blocks = [
            Block("jvm", suite, frozenset({lane}), pods, f"{on}, {pods} pod{'s' if pods > 1 else ''}")
            for suite, lane, pods in scale_runs()
        ]
        return blocks, scale_seconds(blocks, settings)
    runs = suites_on_variants(args, chosen)
    columns = [*map(bench.jvm_column, args.jvm_column), *map(bench.quota_column, args.quota_column)]
    if args.jvm_column and "native" in chosen:
        raise LabError("--jvm-column: the native variant has no JVM (--variants without native)")
    suites = [suite for _, suite in runs]
    for column in columns:
        suites = bench.with_column(suites, *column)
    runs = [(variant, suite) for (variant, _), suite in zip(runs, suites, strict=True)]
    lanes.refuse_unfit_names(
        [VARIANTS[v].name for v in chosen],
        dict.fromkeys(lane for s in suites for load in s.loads for lane in load.lanes),
    )
    blocks = [Block(v, suite, fit_modes(v, suite, modes), args.replicas, VARIANTS[v].environment) for v, suite in runs]
    return blocks, planned_seconds(runs, modes, settings)


# The scale profile (its tables: experiments/scale.py): sleep offered 1.5x and 3x one worker pod's
# thread bound (open model) and product ramped to 350 users (closed), the worker mode on 1, 2 and 4
# pods, the virtual and reactive modes on one.
WORKER_REPLICAS = (1, 2, 4)
ONE_POD_MODES = (bench.Lane(bench.VIRTUAL), bench.Lane(bench.REACTIVE))


def scale_suites() -> list[bench.Suite]:
    scale = bench.Scale("quick")
    bound = bench.littles_bound(bench.sleep.WORKER_THREADS, 0.1)
    opens = [bench.sleep.open_sleep_load(f, bound, scale.short_s) for f in (1.5, 3.0)]
    sleep_suite = dataclasses.replace(bench.sleep.suites(scale)[0], loads=opens)
    main = next(s for s in bench.product.suites(scale) if s.core)
    ramps = [
        dataclasses.replace(ld, lanes=bench.product.MODES) for ld in main.loads if ld.name.startswith("ramp to 350")
    ]
    return [sleep_suite, dataclasses.replace(main, loads=ramps)]


def scale_runs() -> list[tuple[bench.Suite, bench.Lane, int]]:
    """(suite, lane, pods): worker on 1, 2 and 4 pods, then virtual and reactive on one."""
    suites = scale_suites()
    return [(s, bench.Lane(bench.WORKER), r) for s in suites for r in WORKER_REPLICAS] + [
        (s, m, 1) for s in suites for m in ONE_POD_MODES
    ]


def scale_seconds(blocks: list[Block], settings: bench.RunSettings) -> float:
    """The blocks' bench plan plus a few seconds per Job, as planned_seconds."""
    return sum(
        p["start"] + sum(p["runs"].values()) + 4 * len(b.suite.loads) * (settings.repeats + 2)
        for b in blocks
        for lane in b.modes
        for p in [bench.planned_seconds(b.suite, lane, settings)]
    )
