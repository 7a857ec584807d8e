import sys

from loomlab import command
from loomlab.stock import main

command(main, sys.argv[1:])
