"""`./lab k8s fetch WORKLOAD`: the raw summaries (and samples) of a workload's Job, off its results
volume, on any cluster: a reader pod that mounts the volume read-only (after the Job's pod let go
of it, so a ReadWriteOnce volume may move to another node), the files packed with tar and read
back through the API server (pods/exec), the pod deleted. Writes them under --out."""

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
    files = fetch(kube, f"k6-results-{args.workload}", out, image)
    print(f"{len(files)} files of k6-results-{args.workload} in {out}:")
    for f in files:
        print(f"  {f}")


if __name__ == "__main__":
    command(main)
