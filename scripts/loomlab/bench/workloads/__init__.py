"""The workloads, one module each: its seed's figures, its Little's-law bounds, its loads, and
its suites at a Scale (the main suite first, then the seeds' variants of its configuration)."""

from . import buffers, cores, db, ingest, mixed, pinning, product, sleep, tasks

# In report order.
MODULES = (sleep, tasks, product, ingest, db, pinning, mixed, buffers, cores)
