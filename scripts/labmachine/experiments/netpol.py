"""`./lab k8s netpol`: loomlab.incluster.experiments.netpol with the lab's node."""

import sys

from labmachine.cluster.node import this_node
from loomlab import command
from loomlab.incluster.experiments import netpol

if __name__ == "__main__":
    command(lambda: netpol.main(sys.argv[1:], this_node()))
