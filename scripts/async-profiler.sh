#!/usr/bin/env bash
# Prints the folder of async-profiler's agent library (libasyncProfiler.so, Linux x64) and its JFR
# converter (jfr-converter.jar), fetched once from Maven Central with ./mvnw and cached under
# $LOOMLAB_CACHE. `./lab bench --flames` attaches the agent to the service's JVM for one run per
# mode and converts the recording into flame graphs.
#
#   scripts/async-profiler.sh        ensure and print the folder
#   ASYNC_PROFILER_VERSION=4.1       the version of both artifacts (tools.profiler:*)
set -euo pipefail
source "$(dirname "$0")/common.sh"

ASYNC_PROFILER_VERSION="${ASYNC_PROFILER_VERSION:-4.1}"
dir="$LOOMLAB_CACHE/async-profiler-$ASYNC_PROFILER_VERSION"

if [[ -f "$dir/libasyncProfiler.so" && -f "$dir/jfr-converter.jar" ]]; then
  echo "$dir"
  exit 0
fi
[[ "$(uname -m)" == x86_64 ]] || die "async-profiler: the lab unpacks the linux-x64 agent; this machine is $(uname -m)"
pick_jdk >&2
log "async-profiler: fetching tools.profiler:async-profiler and jfr-converter $ASYNC_PROFILER_VERSION (Maven Central, once)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
for artifact in async-profiler jfr-converter; do
  mvnw -q dependency:copy "-Dartifact=tools.profiler:$artifact:$ASYNC_PROFILER_VERSION:jar" \
    "-DoutputDirectory=$tmp" -Dmdep.stripVersion=true >&2
done
mkdir -p "$dir"
# The agent ships inside the jar, one library per platform.
python3 -c 'import sys, zipfile; sys.stdout.buffer.write(zipfile.ZipFile(sys.argv[1]).read("linux-x64/libasyncProfiler.so"))' \
  "$tmp/async-profiler.jar" >"$dir/libasyncProfiler.so"
cp "$tmp/jfr-converter.jar" "$dir/"
echo "$dir"
