"""What an in-cluster run measures: the service variants with an image here, every workload's
suite at the profile's scale, and the time it should take."""

from __future__ import annotations

from dataclasses import dataclass

from loomlab import ROOT, LabError
from loomlab.bench import api as bench
from loomlab.incluster.core import target
from loomlab.labcluster import LAB_IMAGES


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
        if registry and not target.has_image(registry, VARIANTS[v].image):
            skipped.append(
                f"{v}: no image in {registry}"
                + (
                    " (a native executable needs GraalVM or Mandrel: ./lab native; neither exists on this machine)"
                    if v == "native"
                    else f" (./lab k8s images --push {registry} {v})"
                )
            )
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
