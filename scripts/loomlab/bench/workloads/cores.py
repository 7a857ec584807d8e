"""The cores a service gets: the quick answer's A3 and product at 350 users with the service's JVM
held to one CPU (k6 on the other, so it takes none of the service's) and with both CPUs (k6 beside
it, as every other run). The JVM's own view (availableProcessors, carriers, GC threads) is printed
with the pools of each run."""

from __future__ import annotations

import dataclasses

from ..planning.loads import Scale, Suite, modes_of
from . import product, sleep

# (variant, the service's CPUs, k6's CPUs): one core with k6 kept off it, or both shared with k6.
SETTINGS = (("1 core (k6 on the other)", "1", "0"), ("2 cores (shared with k6)", "", ""))
MODES = modes_of("sleep")


def suites(scale: Scale) -> list[Suite]:
    a3_suite = sleep.suites(scale)[0]
    product_suite = product.suites(scale)[0]
    a3 = a3_suite.loads[0]
    ramp = next((ld for ld in product_suite.loads if "350" in ld.name), product_suite.loads[0])
    return [
        Suite(
            workload=base.workload,
            variant=variant,
            description=f"{load.name} with the service on {variant}: what a core more or less does to each mode",
            server_env=base.server_env,
            core=False,
            warmup_seconds=base.warmup_seconds,
            service_cpus=service_cpus,
            loads=[dataclasses.replace(load, lanes=MODES, k6_cpus=k6_cpus, seed={})],
        )
        for variant, service_cpus, k6_cpus in SETTINGS
        for base, load in ((a3_suite, a3), (product_suite, ramp))
    ]
