"""python3 -m loomlab.doctor (./lab doctor)."""

import sys

from loomlab.doctor import main

sys.exit(main(sys.argv[1:]))
