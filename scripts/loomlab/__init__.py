"""loom-lab's harness: the bench that compares the execution modes, the single-node cluster, the
in-cluster runner and the reports. One import root (scripts/), one interpreter: the venv ./lab
creates from scripts/pyproject.toml. ./lab is a thin entry into `python -m loomlab.<command>`."""

from pathlib import Path

# The repository's root: scripts/loomlab/__init__.py -> ../..
ROOT = Path(__file__).resolve().parents[2]
