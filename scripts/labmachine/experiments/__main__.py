"""`./lab k8s autoscale|failover|netpol`: the harness's experiment NAME with the lab's node."""

import sys

from labmachine.cluster.node import this_node
from loomlab import command
from loomlab.incluster.experiments import autoscale, failover, netpol

EXPERIMENTS = {"autoscale": autoscale.main, "failover": failover.main, "netpol": netpol.main}

if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in EXPERIMENTS:
        sys.exit(f"usage: python -m labmachine.experiments {'|'.join(EXPERIMENTS)} [options]")
    command(lambda: EXPERIMENTS[sys.argv[1]](sys.argv[2:], this_node()))
