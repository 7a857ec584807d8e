#!/usr/bin/env bash
# A throwaway local PostgreSQL 15 + pgvector for loom-lab, on loopback, data in a folder it owns.
#
#   scripts/db.sh start     provision (initdb, pgvector, role, database) if needed, then start
#   scripts/db.sh stop      stop it (data kept)
#   scripts/db.sh status    running or not, and where
#   scripts/db.sh env       print the QUARKUS_DATASOURCE_* exports for this database (the schema's
#                           owner: Flyway and the tests), and LOOMLAB_DB_SERVICE_* (the service's)
#   scripts/db.sh dir       print the folder of its data (made or not yet)
#   scripts/db.sh destroy   stop and delete its data
#
# Parameters (environment): LOOMLAB_PG_PORT (default 54329), LOOMLAB_PG_DIR (default
# $LOOMLAB_CACHE/pg, or /var/lib/loom-lab/pg when run as root: initdb refuses root, so the
# server runs as the postgres user and its files cannot live under /root; /var/lib is root's alone,
# so no other user can plant or squat the folder before root's first start).
# Two roles, as in the cluster (deploy/k8s/components/postgres-init/postgres-init.sh): 'loomlab',
# the database's owner, whose migrations create and change the tables, and 'loomlab_service', which
# may read and write the rows of every table the owner makes and change no schema: the lab's
# measured service logs in as it. Their passwords are generated at first start and kept beside the data.
set -euo pipefail
source "$(dirname "$0")/common.sh"

PG_BIN="${PG_BIN:-/usr/lib/postgresql/15/bin}"
PG_PORT="${LOOMLAB_PG_PORT:-54329}"
ROOT_PG_DIR=/var/lib/loom-lab/pg
if [[ $EUID -eq 0 ]]; then
  PG_DIR="${LOOMLAB_PG_DIR:-$ROOT_PG_DIR}"
  as_pg() { runuser -u postgres -- "$@"; }
else
  PG_DIR="${LOOMLAB_PG_DIR:-$LOOMLAB_CACHE/pg}"
  as_pg() { "$@"; }
fi
DATA="$PG_DIR/data"
SOCK="$PG_DIR/run"
PWFILE="$PG_DIR/password"
SERVICE_PWFILE="$PG_DIR/password-service"
DB_NAME=loomlab
DB_USER=loomlab
SERVICE_USER=loomlab_service

running() { [[ -f "$DATA/postmaster.pid" ]] && as_pg "$PG_BIN/pg_ctl" -D "$DATA" status >/dev/null 2>&1; }
psql_admin() { as_pg "$PG_BIN/psql" -h "$SOCK" -p "$PG_PORT" -U postgres -v ON_ERROR_STOP=1 -qAt "$@"; }

# The data folder, private to the server's user: made 0700 here, or found as a real folder (not a
# link) of that user or root that no one else may write (a folder LOOMLAB_PG_DIR names in a place
# others can write, planted there by another user, is refused, not used as root).
private_dir() {
  local dir=$1 owner=$2 who mode
  [[ -L $dir ]] && die "db: $dir is a symbolic link; refusing it (remove it, or set LOOMLAB_PG_DIR)"
  if [[ ! -e $dir ]]; then
    install -d -m 0700 -o "$owner" -g "$(id -gn "$owner")" "$dir"
    return
  fi
  [[ -d $dir ]] || die "db: $dir is not a folder; refusing it"
  who="$(stat -c %U "$dir")"
  mode="$(stat -c %a "$dir")"
  [[ $who == "$owner" || $who == root ]] ||
    die "db: $dir belongs to $who, not $owner; refusing it (remove it, or set LOOMLAB_PG_DIR)"
  ((8#$mode & 8#022)) && die "db: $dir is writable by others (mode $mode); refusing it"
  return 0
}

init() {
  [[ -x "$PG_BIN/initdb" ]] || die "PostgreSQL 15 server binaries not found in $PG_BIN (Debian: apt-get install postgresql-15)"
  if [[ $EUID -eq 0 ]]; then
    [[ $PG_DIR == "$ROOT_PG_DIR" ]] && install -d -m 0755 -o root -g root "$(dirname "$PG_DIR")"
    private_dir "$PG_DIR" postgres
  else
    private_dir "$PG_DIR" "$(id -un)"
  fi
  mkdir -p "$SOCK"
  if [[ $EUID -eq 0 ]]; then chown postgres: "$SOCK"; fi
  local file
  for file in "$PWFILE" "$SERVICE_PWFILE"; do
    [[ -f $file ]] || (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$file")
    if [[ $EUID -eq 0 ]]; then chown postgres: "$file"; fi
  done
  [[ -f "$DATA/PG_VERSION" ]] && return 0
  log "db: initdb in $DATA"
  # Local socket: trust for the admin (it owns the files anyway); TCP: password only.
  as_pg "$PG_BIN/initdb" -D "$DATA" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
    -E UTF8 --locale=C.UTF-8 >"$PG_DIR/initdb.log"
}

start() {
  bash "$LOOMLAB_ROOT/scripts/pgvector.sh"
  init
  if running; then
    log "db: already running on 127.0.0.1:$PG_PORT"
  else
    port_free
    log "db: starting PostgreSQL 15 on 127.0.0.1:$PG_PORT (data $DATA)"
    # Sized for a benchmark box: enough connections for several pools, fsync kept on.
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -l "$PG_DIR/server.log" -w -t 30 start -o \
      "-c listen_addresses=127.0.0.1 -c port=$PG_PORT -c unix_socket_directories=$SOCK -c max_connections=300 -c shared_buffers=256MB" \
      >/dev/null || {
      tail -n 20 "$PG_DIR/server.log" >&2
      die "db: PostgreSQL did not start"
    }
  fi
  if [[ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname='$DB_USER'")" != 1 ]]; then
    log "db: creating role $DB_USER and database $DB_NAME"
    # The password on psql's input, never in an argument list another user could read in ps.
    psql_admin <<<"CREATE ROLE $DB_USER LOGIN PASSWORD '$(cat "$PWFILE")'"
    psql_admin -c "CREATE DATABASE $DB_NAME OWNER $DB_USER"
  fi
  # The extension is created by Flyway (V1); creating it needs superuser or a trusted
  # extension, so the role gets to create it in its own database only.
  PGOPTIONS='-c client_min_messages=warning' psql_admin -d "$DB_NAME" -c "CREATE EXTENSION IF NOT EXISTS vector" >/dev/null
  service_role
}

# The service's role (deploy/k8s/components/postgres-init/service-grants.sql says what it may).
# Idempotent, every start.
service_role() {
  if [[ "$(psql_admin -c "SELECT 1 FROM pg_roles WHERE rolname='$SERVICE_USER'")" != 1 ]]; then
    log "db: creating role $SERVICE_USER (the service's: rows, no schema)"
    psql_admin <<<"CREATE ROLE $SERVICE_USER LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD '$(cat "$SERVICE_PWFILE")'"
  fi
  # The grants in one file, the cluster's database's too; on psql's input (the server's user may
  # not read this checkout).
  psql_admin -d "$DB_NAME" -v db="$DB_NAME" -v owner="$DB_USER" -v app="$SERVICE_USER" \
    <"$LOOMLAB_ROOT/deploy/k8s/components/postgres-init/service-grants.sql"
}

# Refuses to start on a port another server holds, naming the usual one: root's lab database, left
# running by an earlier `sudo ./lab ...`, when this run is a user's.
port_free() {
  ss -H -l -n -t "sport = :$PG_PORT" 2>/dev/null | grep -q . || return 0
  if [[ $EUID -ne 0 && -d $ROOT_PG_DIR ]]; then
    die "db: 127.0.0.1:$PG_PORT is taken, most likely by root's lab database ($ROOT_PG_DIR) from an earlier run as root:
      stop it with 'sudo ./lab db stop' (its data stays), or set LOOMLAB_PG_PORT to another port"
  fi
  die "db: 127.0.0.1:$PG_PORT is taken by another process (ss -ltnp 'sport = :$PG_PORT' says which); stop it or set LOOMLAB_PG_PORT"
}

stop() {
  if running; then
    log "db: stopping"
    as_pg "$PG_BIN/pg_ctl" -D "$DATA" -m fast -w stop >/dev/null
  else
    log "db: not running"
  fi
}

status() {
  if running; then
    echo "running: jdbc:postgresql://127.0.0.1:$PG_PORT/$DB_NAME (data $DATA)"
  else
    echo "stopped (data ${DATA})"
    return 3
  fi
}

env_exports() {
  [[ -f "$PWFILE" ]] || die "db: not provisioned yet; run '$0 start'"
  # Quoted for the shell that evaluates them: the password file's content stays a value.
  printf 'export QUARKUS_DATASOURCE_JDBC_URL=%q\n' "jdbc:postgresql://127.0.0.1:$PG_PORT/$DB_NAME"
  printf 'export QUARKUS_DATASOURCE_USERNAME=%q\n' "$DB_USER"
  printf 'export QUARKUS_DATASOURCE_PASSWORD=%q\n' "$(cat "$PWFILE")"
  [[ -f "$SERVICE_PWFILE" ]] || return 0 # provisioned before the service's role: its next start adds it
  printf 'export LOOMLAB_DB_SERVICE_USERNAME=%q\n' "$SERVICE_USER"
  printf 'export LOOMLAB_DB_SERVICE_PASSWORD=%q\n' "$(cat "$SERVICE_PWFILE")"
}

case "${1:-}" in
start) start ;;
stop) stop ;;
status) status ;;
env) env_exports ;;
dir) echo "$PG_DIR" ;;
destroy)
  stop
  log "db: deleting $PG_DIR"
  rm -rf "$PG_DIR"
  if [[ $PG_DIR == "$ROOT_PG_DIR" ]]; then rmdir --ignore-fail-on-non-empty "$(dirname "$PG_DIR")"; fi
  ;;
*)
  sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'
  exit 2
  ;;
esac
