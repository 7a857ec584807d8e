"""A lane in a cluster: the variant's Deployment and Service copied as the lane's own, so that every
lane's pods stay up side by side while the rounds interleave the lanes, with the lane's setting (a
knob column: `./lab k8s run --jvm-column`, `--quota-column`) applied to its pods."""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable

from loomlab import LabError
from loomlab.bench import api as bench

MODE_LABEL = "loom-lab.dev/mode"
# The variable the images' launcher reads last for JVM flags (src/main/docker/local/run-java.sh):
# the Deployment's own (deploy/k8s/overlays/jvm), then a lane's.
JVM_FLAGS_VAR = "JAVA_OPTS_APPEND"


def mode_slug(lane: bench.Lane) -> str:
    """The lane's name as a Kubernetes name and label value (its key's `+` and brackets as dashes:
    virtual+rx as virtual-rx, virtual[heap] as virtual-heap)."""
    return re.sub(r"[^a-z0-9.-]+", "-", lane.key.lower()).strip("-")


# A Service's name is a DNS label: at most 63 characters (RFC 1035), which a lane's copy must keep.
NAME_MAX = 63


def refuse_unfit_names(bases: list[str], lanes: Iterable[bench.Lane]) -> None:
    """Before anything is applied: every lane's copy of a variant's Deployment and Service (own_copy:
    base-slug) a name the API server takes, and no two lanes under one slug (names differing only in
    case or in the characters a slug drops), which would share one Deployment."""
    by_slug: dict[str, str] = {}
    for lane in lanes:
        slug = mode_slug(lane)
        if by_slug.setdefault(slug, lane.key) != lane.key:
            raise LabError(
                f"{by_slug[slug]} and {lane.key} are one name in the cluster ({slug}): name the columns apart"
            )
        for base in bases:
            if len(f"{base}-{slug}") > NAME_MAX:
                raise LabError(
                    f"{lane.key}: its Deployment {base}-{slug} is longer than a Service's {NAME_MAX} characters:"
                    " a shorter column name"
                )


def with_setting(env: list[dict], lane: bench.Lane) -> list[dict]:
    """A container's environment with the lane's setting: its variables, and its JVM flags after the
    Deployment's own. A setting that is another jar is the local bench's only: an image holds its jar."""
    knob = lane.knob
    if knob.jar or knob.bare:
        raise LabError(f"{lane.key}: another jar (--build, --minimal) runs on this machine only, not in an image")
    out = [dict(e) for e in env if e["name"] not in knob.env]
    out += [{"name": k, "value": v} for k, v in knob.env.items()]
    if knob.jvm_flags:
        flags = " ".join(knob.jvm_flags)
        found = next((e for e in out if e["name"] == JVM_FLAGS_VAR), None)
        if found is None:
            out.append({"name": JVM_FLAGS_VAR, "value": flags})
        else:
            found["value"] = f"{found.get('value', '')} {flags}".strip()
    return out


def own_copy(deployment: dict, service: dict, lane: bench.Lane) -> tuple[dict, dict]:
    """The variant's Deployment and Service as the lane's own (name and selector carry the lane); a
    lane with a CPU quota has it as its container's CPU limit (0: none; limit_cpu), the pod's
    shape of the bench's cgroup column."""
    slug = mode_slug(lane)
    dep, svc = copy.deepcopy(deployment), copy.deepcopy(service)
    for doc in (dep, svc):
        doc["metadata"]["name"] = f"{doc['metadata']['name']}-{slug}"
        doc["metadata"].setdefault("labels", {})[MODE_LABEL] = slug
    dep["spec"]["selector"]["matchLabels"][MODE_LABEL] = slug
    dep["spec"]["template"]["metadata"]["labels"][MODE_LABEL] = slug
    svc["spec"]["selector"][MODE_LABEL] = slug
    if lane.knob.quota_cpus is not None:
        limit_cpu(dep["spec"]["template"]["spec"]["containers"][0].setdefault("resources", {}), lane.knob.quota_cpus)
    return dep, svc


def limit_cpu(resources: dict, cpus: float) -> None:
    """A container's `resources` with `cpus` as its CPU limit (0: none); the request kept (what the
    scheduler places), lowered to the limit only where it is above it (the API refuses that)."""
    limits, requests = resources.setdefault("limits", {}), resources.setdefault("requests", {})
    if not cpus:
        limits.pop("cpu", None)
        return
    limits["cpu"] = f"{cpus:g}"
    if cpus < cpu_of(requests.get("cpu", "0")):
        requests["cpu"] = limits["cpu"]


def cpu_of(quantity: str) -> float:
    """A CPU quantity of Kubernetes' ("100m", "2", "1.5") in CPUs."""
    return int(quantity[:-1]) / 1000 if quantity.endswith("m") else float(quantity)
