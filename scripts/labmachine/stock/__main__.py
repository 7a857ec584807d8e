import sys

from labmachine.stock import main
from loomlab import command

command(main, sys.argv[1:])
