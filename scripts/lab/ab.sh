#!/usr/bin/env bash
# ./lab ab REV [bench options]: another commit's build beside today's in the same rounds. Its jar is
# built once from a worktree (cached by commit under $LOOMLAB_CACHE/ab), then ./lab bench runs with a
# column per mode on it (--build).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# In a function, called on the last line: editing this file while it runs cannot change it.
main() {
  rev="${1:?usage: ./lab ab REV [bench options], REV a commit, e.g. the one a results page names}"
  shift
  [[ $rev != -* ]] || die "ab: REV is a commit, not an option: $rev"
  sha="$(git rev-parse --short=12 --verify --quiet --end-of-options "$rev^{commit}")" || die "ab: no commit $rev here"
  built="$LOOMLAB_CACHE/ab/$sha"
  if [[ ! -f $built/quarkus-app/quarkus-run.jar ]]; then
    pick_jdk
    log "ab: building $sha from a worktree of it (./mvnw package, tests skipped)"
    rm -rf "$built" && mkdir -p "$built"
    git worktree add --detach --quiet "$built/src" "$sha"
    mvnw -q -f "$built/src/pom.xml" package -DskipTests -Dspotless.check.skip=true
    mv "$built/src/target/quarkus-app" "$built/quarkus-app"
    git worktree remove --force "$built/src"
  fi
  LOOMLAB_COMMAND="./lab ab $rev $*" exec ./lab bench --build "$sha=$built/quarkus-app/quarkus-run.jar" "$@"
}

main "$@"; exit "$?"
