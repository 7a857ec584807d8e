"""`./lab k8s fetch WORKLOAD [--k6]`: the runs' files of a workload's load Job (deploy/k8s/loads; with
--k6 the raw summaries and samples of its k6 twin, deploy/k8s/jobs), off its results
volume, on any cluster: a reader pod that mounts the volume read-only (after the Job's pod let go
of it, so a ReadWriteOnce volume may move to another node), the files packed with tar and read
back through the API server (its log: pods/log, no exec), the pod deleted. Writes them under --out."""

from __future__ import annotations

import sys
from pathlib import Path

from loomlab import command
from loomlab.incluster import cli
from loomlab.incluster.core import target
from loomlab.incluster.core.volumes import READER_IMAGE, fetch


def main(argv=None):
    args = cli.fetch(sys.argv[1:] if argv is None else argv)
    kube = target.connect(args)
    image = target.pushed(args.registry).get(READER_IMAGE, READER_IMAGE)
    out = Path(args.out or f"target/loom-lab/k8s-results/{args.workload}")
    claim = f"{'k6' if args.k6 else 'loadgen'}-results-{args.workload}"
    files = fetch(kube, claim, out, image)
    print(f"{len(files)} files of {claim} in {out}:")
    for f in files:
        print(f"  {f}")


if __name__ == "__main__":
    command(main)
