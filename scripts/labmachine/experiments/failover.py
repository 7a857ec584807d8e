"""`./lab k8s failover`: loomlab.incluster.experiments.failover with the lab's node."""

import sys

from labmachine.cluster.node import this_node
from loomlab import command
from loomlab.incluster.experiments import failover

if __name__ == "__main__":
    command(lambda: failover.main(sys.argv[1:], this_node()))
