"""`./lab k8s autoscale`: loomlab.incluster.experiments.autoscale with the lab's node."""

import sys

from labmachine.cluster.node import this_node
from loomlab import command
from loomlab.incluster.experiments import autoscale

if __name__ == "__main__":
    command(lambda: autoscale.main(sys.argv[1:], this_node()))
