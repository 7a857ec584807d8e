# Shared helpers for ./lab and scripts/*. Sourced, never run.
# shellcheck shell=bash

LOOMLAB_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
# Everything the lab installs or builds outside the repo (pgvector build, k6 binary, database
# files) lives here, so a clean clone reuses it and `rm -rf` of it resets the machine.
LOOMLAB_CACHE="${LOOMLAB_CACHE:-$HOME/.cache/loom-lab}"
export LOOMLAB_ROOT LOOMLAB_CACHE

# Go where go.dev's instructions install it, for a shell whose PATH was not changed to include it.
if ! command -v go >/dev/null 2>&1 && [[ -x /usr/local/go/bin/go ]]; then
  export PATH="/usr/local/go/bin:$PATH"
fi

log() { printf '\033[1;34m[lab]\033[0m %s\n' "$*" >&2; }
warn() { printf '\033[1;33m[lab]\033[0m %s\n' "$*" >&2; }
die() {
  printf '\033[1;31m[lab] error:\033[0m %s\n' "$*" >&2
  printf '[lab] common failures and their fixes: docs/troubleshooting.md\n' >&2
  exit 1
}

# debian_tool COMMAND PACKAGE WHAT: COMMAND on PATH, else PACKAGE installed from Debian as root, else
# a stop that says what needs it and the line that installs it (a normal user's run).
debian_tool() {
  command -v "$1" >/dev/null && return 0
  [[ $EUID -eq 0 ]] || die "$1 is missing, for $3: sudo apt-get install -y $2 (once), then run this again"
  log "installing $2 from Debian ($1, for $3)"
  # shellcheck disable=SC2086 # PACKAGE may be several, one word each
  apt-get update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $2 >/dev/null
}

# java_major PATH_TO_JAVA -> prints the feature release (17, 21, 25, ...)
java_major() {
  "$1" -XshowSettings:properties -version 2>&1 |
    sed -n 's/^ *java\.specification\.version = //p' | head -n1
}

# pick_jdk: exports JAVA_HOME to a JDK >= 21 (prefers JAVA_HOME if it qualifies, then the
# newest of the usual install locations), says which, or fails with what to install.
pick_jdk() {
  [[ -n "${LOOMLAB_JDK_PICKED:-}" ]] && return 0
  local candidates=() c major best="" best_major=0
  [[ -n "${JAVA_HOME:-}" ]] && candidates+=("$JAVA_HOME")
  for c in /usr/lib/jvm/* /opt/java/* /opt/jdk* "$HOME"/.sdkman/candidates/java/*; do
    [[ -d "$c" ]] && candidates+=("$c")
  done
  if command -v java >/dev/null 2>&1; then
    candidates+=("$(dirname "$(dirname "$(readlink -f "$(command -v java)")")")")
  fi
  for c in "${candidates[@]}"; do
    [[ -x "$c/bin/java" && -x "$c/bin/javac" ]] || continue
    major="$(java_major "$c/bin/java")"
    [[ "$major" =~ ^[0-9]+$ ]] || continue
    # JAVA_HOME wins when it is recent enough; otherwise take the newest.
    if [[ "$c" == "${JAVA_HOME:-}" && "$major" -ge 21 ]]; then
      best="$c" best_major="$major"
      break
    fi
    if ((major > best_major)); then best="$c" best_major="$major"; fi
  done
  if [[ -z "$best" || "$best_major" -lt 21 ]]; then
    die "loom-lab needs a JDK >= 21 (25 recommended) for virtual threads; found ${best_major:-none}.
      Install one (e.g. Temurin 25 under /usr/lib/jvm) or set JAVA_HOME to it."
  fi
  export JAVA_HOME="$best" PATH="$best/bin:$PATH" LOOMLAB_JDK_PICKED=1
  log "JDK $best_major at $JAVA_HOME"
  # The build runs on 25 (pom.xml compiles for release 21, one class for 22, and packs the AOT cache).
  if ((best_major < 25)); then
    die "the build runs on JDK 25 (pom.xml); JDK $best_major can run a packaged jar (./lab bench --jdk 21) but not build it"
  fi
}

mvnw() { (cd "$LOOMLAB_ROOT" && ./mvnw -B -ntp "$@"); }

# lab_python: prints the Python of every harness command: a venv at .venv with every package of
# scripts/requirements.lock (hash-checked) and the package of scripts/pyproject.toml (editable, so
# the checkout's code runs), created once per checkout and again when either file changes.
lab_python() {
  local venv="$LOOMLAB_ROOT/.venv" stamp sig
  stamp="$venv/.loomlab-installed"
  sig="$(cat "$LOOMLAB_ROOT/scripts/pyproject.toml" "$LOOMLAB_ROOT/scripts/requirements.lock" | sha256sum | cut -c1-16)"
  if [[ ! -x "$venv/bin/python" || ! -f "$stamp" || "$(cat "$stamp")" != "$sig" ]]; then
    log "python: creating $venv (every package from scripts/requirements.lock, each file checked by its SHA-256; then the harness)"
    rm -rf "$venv"
    if ! python3 -c 'import ensurepip' 2>/dev/null; then
      [[ $EUID -eq 0 ]] || die "python3 -m venv needs Debian's python3-venv: sudo apt-get install -y python3-venv"
      log "python: installing python3-venv from Debian (python3 -m venv needs it)"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-venv >/dev/null
    fi
    python3 -m venv "$venv" >&2
    local pip=("$venv/bin/pip" install -q --disable-pip-version-check --no-deps)
    "${pip[@]}" --require-hashes -r "$LOOMLAB_ROOT/scripts/requirements.lock" >&2
    "${pip[@]}" --no-build-isolation -e "$LOOMLAB_ROOT/scripts" >&2
    echo "$sig" >"$stamp"
  fi
  echo "$venv/bin/python"
}
