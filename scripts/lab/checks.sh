#!/usr/bin/env bash
# ./lab test's lint: the harness checked like the Java. ruff (lint and format, scripts/pyproject.toml)
# and mypy on the Python packages, the licence gates (PyPI, npm, Go) with docs/licences.md's tables
# held to them, shellcheck (Debian's, installed when missing) on every shell script, ESLint on k6/,
# Go's own checks on the lab's Go programs (scripts/reference, scripts/loadgen, scripts/licences).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  py="$(lab_python)"
  bin="$(dirname "$py")"
  log "harness: ruff check, ruff format --check, mypy (scripts/), the licence gates (PyPI, npm, Go), shellcheck, eslint (k6/), go vet and test (scripts/reference, scripts/loadgen, scripts/licences)"
  "$bin/ruff" check --quiet scripts
  "$bin/ruff" format --check --quiet scripts
  (cd scripts && "$bin/mypy" --no-error-summary loomlab labmachine)

  # page_part NAME: docs/licences.md between its <!-- NAME: --> and <!-- /NAME --> markers.
  page_part() { sed -n "/^<!-- $1: /,/^<!-- \/$1 -->/p" docs/licences.md | sed '1d;$d'; }

  # The licence gate on the venv's Python packages, and docs/licences.md's table of them held to it.
  bash scripts/licences/pypi.sh "$py"
  [[ "$(bash scripts/licences/pypi.sh "$py" --md)" == "$(page_part licences-pypi)" ]] ||
    die "docs/licences.md's Python table is not scripts/licences/pypi.sh's output: regenerate it (scripts/licences/pypi.sh .venv/bin/python --md)"

  debian_tool shellcheck shellcheck "the shell scripts' lint"
  shellcheck -x -P SCRIPTDIR lab .ci/run k6/run.sh scripts/*.sh scripts/lab/*.sh scripts/k8s/*.sh scripts/licences/*.sh \
    src/main/docker/local/*.sh deploy/k8s/components/postgres-init/*.sh

  debian_tool npm "nodejs npm" "the k6 scripts' lint and the npm licence gate"
  # The k6 scripts' linter, pinned by k6/package-lock.json, installed once into k6/node_modules.
  [[ k6/node_modules/.package-lock.json -nt k6/package-lock.json ]] || (cd k6 && npm ci --silent --no-audit --no-fund)
  (cd k6 && npx --no-install eslint --max-warnings 0 .)
  # The licence gate on those npm packages, and docs/licences.md's count of them held to it.
  bash scripts/licences/npm.sh k6
  [[ "$(bash scripts/licences/npm.sh k6 --summary)" == "$(page_part licences-npm | sed '1d;$d')" ]] ||
    die "docs/licences.md's npm summary is not scripts/licences/npm.sh's output: regenerate it (scripts/licences/npm.sh k6 --summary)"

  # The lab's Go programs (the reference server, the load generator), where Go is installed: gofmt,
  # go vet and their tests; then the licence gate on what they link, and docs/licences.md's table.
  command -v go >/dev/null || exit 0
  export GOFLAGS=-buildvcs=false
  for tool in scripts/reference scripts/loadgen scripts/licences; do
    [[ -z "$(gofmt -l "$tool")" ]] || die "gofmt would change: $(gofmt -l "$tool")"
    (cd "$tool" && go vet ./... && go test -count=1 ./... >&2)
  done
  table="$(cd scripts/licences && go run . -md ../loadgen ../reference)"  # exits 1 on a refused licence
  [[ "$table" == "$(page_part licences)" ]] ||
    die "docs/licences.md's Go table is not scripts/licences' output: regenerate it
      (cd scripts/licences && go run . -md ../loadgen ../reference)"
}

main "$@"; exit "$?"
