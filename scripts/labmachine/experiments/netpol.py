"""`./lab k8s netpol`: loomlab.incluster.experiments.netpol with the lab's node."""

import sys

from labmachine.cluster.node import ThisNode
from loomlab import command
from loomlab.incluster.experiments import netpol

if __name__ == "__main__":
    command(netpol.main, sys.argv[1:], ThisNode())
