#!/usr/bin/env bash
# The licence gate on the harness's Python packages (scripts/requirements.lock, in the venv ./lab
# makes): pip-licenses reads each installed package's own metadata (its License-Expression, License
# field and classifiers) and fails on the first licence outside the list below: permissive ones only,
# so AGPL, SSPL, BUSL, source-available and a package that names no licence all fail.
#
#   scripts/licences/pypi.sh PYTHON        the gate on the packages of PYTHON's venv (and PYTHONPATH; exit 1 on a refusal)
#   scripts/licences/pypi.sh PYTHON --md   their table (docs/licences.md holds it)
set -euo pipefail
python="${1:?usage: scripts/licences/pypi.sh PYTHON [--md]}"
piplicenses="$(dirname "$python")/pip-licenses"
# Matched as parts of each licence's name ("MIT" also matches "MIT License" and "MIT-0"); a package
# that offers a choice ("MIT OR SSPL-1.0") passes on the permissive one, which a user may take.
ALLOWED="MIT;BSD;Apache;ISC;PSF-2.0;Python Software Foundation;Mozilla Public License 2.0;MPL-2.0"
# loomlab is the harness itself (Apache-2.0, as the repository: LICENSE), which declares no licence
# of its own in pyproject.toml.
args=(--from=mixed --ignore-packages loomlab)
if [[ ${2:-} == --md ]]; then
  exec "$piplicenses" "${args[@]}" --format=markdown --order=name
fi
exec "$piplicenses" "${args[@]}" --partial-match --allow-only "$ALLOWED" >/dev/null
