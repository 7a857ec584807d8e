#!/usr/bin/env bash
# Installs the pgvector extension into the local PostgreSQL 15 server, building it from
# Debian's source package (Debian bookworm ships no postgresql-15-pgvector).
#
#   scripts/pgvector.sh           install if missing (idempotent, ~25 s the first time)
#
# Route: a private apt configuration (it leaves /etc/apt alone) adds trixie's deb-src to
# fetch pgvector's source; the server headers come from postgresql-server-dev-15 of the
# installed server version, unpacked with dpkg -x rather than installed (installing it
# would pull clang and upgrade the server). Build with with_llvm=no (no JIT bitcode).
set -euo pipefail
source "$(dirname "$0")/common.sh"

PG_CONFIG="${PG_CONFIG:-/usr/lib/postgresql/15/bin/pg_config}"
PGVECTOR_DEB_SUITE="${PGVECTOR_DEB_SUITE:-trixie}"
# The upstream release built, pinned by its source tarball's SHA-256 (any Debian revision of it is
# taken; apt has checked its files against the suite's signed index, this holds the release itself).
PGVECTOR_VERSION="0.8.0"
PGVECTOR_ORIG_SHA256="867a2c328d4928a5a9d6f052cd3bc78c7d60228a9b914ad32aa3db88e9de27b0"

[[ -x "$PG_CONFIG" ]] || die "PostgreSQL 15 server not found ($PG_CONFIG); install Debian's postgresql-15"
sharedir="$("$PG_CONFIG" --sharedir)"
pkglibdir="$("$PG_CONFIG" --pkglibdir)"
if [[ -f "$sharedir/extension/vector.control" && -f "$pkglibdir/vector.so" ]]; then
  log "pgvector: already installed ($(sed -n "s/^default_version = '\(.*\)'/\1/p" "$sharedir/extension/vector.control"))"
  exit 0
fi
[[ $EUID -eq 0 ]] || die "pgvector is missing and installing it into $pkglibdir needs root.
      Run 'sudo scripts/pgvector.sh' once, or point QUARKUS_DATASOURCE_JDBC_URL at a PostgreSQL with pgvector."
# Its build tools, from Debian where missing (root already: see above).
if ! command -v make >/dev/null || ! command -v gcc >/dev/null || ! command -v dpkg-source >/dev/null; then
  log "pgvector: installing its build tools from Debian (gcc make dpkg-dev)"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc make dpkg-dev >/dev/null
fi

work="$LOOMLAB_CACHE/pgvector-build"
rm -rf "$work" && mkdir -p "$work"/{apt/lists/partial,apt/cache/archives/partial,apt/sources.list.d}
cd "$work"

# Private apt configuration: only trixie deb-src, state and cache under $work.
cat >apt/sources.list <<SRC
deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian $PGVECTOR_DEB_SUITE main
SRC
apt_private=(-o "Dir::Etc::sourcelist=$work/apt/sources.list" -o "Dir::Etc::sourceparts=$work/apt/sources.list.d"
  -o "Dir::State::Lists=$work/apt/lists" -o "Dir::Cache=$work/apt/cache" -o "APT::Sandbox::User=root")

log "pgvector: fetching source from Debian $PGVECTOR_DEB_SUITE (private apt config)"
apt-get -qq "${apt_private[@]}" update
apt-get -qq "${apt_private[@]}" source --download-only pgvector >/dev/null
orig="pgvector_${PGVECTOR_VERSION}.orig.tar.gz"
[[ -f $orig ]] || die "pgvector: $PGVECTOR_DEB_SUITE no longer carries $PGVECTOR_VERSION (it has: $(ls pgvector_*.dsc)); update PGVECTOR_VERSION and its SHA-256 in $0"
echo "$PGVECTOR_ORIG_SHA256  $orig" | sha256sum -c --quiet - ||
  die "pgvector: $orig does not have the pinned SHA-256; refusing to build it"
dpkg-source -x --no-check pgvector_*.dsc src >/dev/null

server_version="$(dpkg-query -W -f='${Version}' postgresql-15)"
log "pgvector: server headers from postgresql-server-dev-15=$server_version"
if ! apt-get -qq download "postgresql-server-dev-15=$server_version" 2>/dev/null; then
  apt-get -qq update
  apt-get -qq download "postgresql-server-dev-15=$server_version"
fi
dpkg -x postgresql-server-dev-15_*.deb devroot

log "pgvector: building ($(sed -n 's/^Version: //p' pgvector_*.dsc))"
make_vars=(PG_CONFIG="$PG_CONFIG" with_llvm=no "includedir_server=$work/devroot/usr/include/postgresql/15/server")
make -s -C src "${make_vars[@]}" -j"$(nproc)" >/dev/null
make -s -C src "${make_vars[@]}" install >/dev/null
log "pgvector: installed into $pkglibdir and $sharedir/extension"
