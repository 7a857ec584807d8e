#!/usr/bin/env bash
# The licence gate on the npm packages the lab installs (k6/package-lock.json: the k6 scripts'
# linter, and this gate's own checker): license-checker-rseidelsohn (BSD-3-Clause, pinned in that
# lock) reads each installed package's package.json and fails on the first licence outside the list
# below: permissive ones only, so AGPL, SSPL, BUSL, source-available ("SEE LICENSE IN ...") and a
# package that names no licence ("UNKNOWN") all fail.
#
#   scripts/licences/npm.sh [DIR]            the gate on DIR's node_modules (default: k6), exit 1 on a refusal
#   scripts/licences/npm.sh [DIR] --summary  the count of packages per licence (docs/licences.md holds it)
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
dir="$(cd "${1:-$root/k6}" && pwd)"
# Exact SPDX expressions as the packages write them. CC-BY-3.0 is spdx-exceptions' data (a list of
# licence exceptions), BlueOak-1.0.0 a permissive licence of the Blue Oak Council; Python-2.0 is
# argparse's (a JavaScript port).
ALLOWED="MIT;ISC;Apache-2.0;BlueOak-1.0.0;BSD-2-Clause;BSD-3-Clause;Python-2.0;CC-BY-3.0;CC0-1.0;(MIT AND CC-BY-3.0)"
checker=("$root/k6/node_modules/.bin/license-checker-rseidelsohn" --start "$dir" --excludePrivatePackages)
if [[ ${2:-} == --summary ]]; then
  exec "${checker[@]}" --summary
fi
exec "${checker[@]}" --onlyAllow "$ALLOWED" >/dev/null
