"""loom-lab's harness: the bench that compares the execution modes, the in-cluster runner and the
reports. The lab's own machinery (its single-node cluster, the stock machine, the dry-run API
server) is a package beside it, labmachine, which the harness never imports. One import root
(scripts/), one interpreter: the venv ./lab creates from scripts/pyproject.toml. ./lab is a thin
entry into `python -m loomlab.<command>` (and labmachine.<command>)."""

import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn

# The repository's root: scripts/loomlab/__init__.py -> ../..
ROOT = Path(__file__).resolve().parents[2]
# What the lab builds and fetches once (the database, the tools, the cluster, the images).
CACHE = Path(os.environ.get("LOOMLAB_CACHE") or os.path.expanduser("~/.cache/loom-lab"))


class LabError(Exception):
    """What a command refuses or could not do, in words for its user: `command` prints it and exits
    1. Library modules raise it instead of SystemExit, so a caller (a test, a retry) can catch it;
    proc.wait_until never takes it for "not yet". A bug keeps its traceback."""


# Where a failure's reader goes next (printed with every error a command stops on).
TROUBLESHOOTING = "docs/troubleshooting.md"


def command(main: Callable[..., object], *args: object) -> NoReturn:
    """A command's entry: runs main(*args); an int it returns is the exit status, a LabError is
    printed as "lab: ..." with exit 1. SIGTERM ends it as Ctrl-C does, through its `finally` blocks
    (the services it started are stopped, never left holding their ports)."""
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(128 + signum))
    try:
        status = main(*args)
    except LabError as e:
        print(f"lab: {e}", file=sys.stderr, flush=True)
        print(f"lab: common failures and their fixes: {TROUBLESHOOTING}", file=sys.stderr, flush=True)
        raise SystemExit(1) from None
    raise SystemExit(status if isinstance(status, int) else 0)
