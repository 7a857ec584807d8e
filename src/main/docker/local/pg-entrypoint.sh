#!/bin/sh
# As the official image's entrypoint does, for the part the lab uses: the first start initialises
# PGDATA (initdb with the given superuser, TCP logins by password), creates POSTGRES_DB, then runs
# /docker-entrypoint-initdb.d/*.sh against a server that listens on its socket only
# (components/postgres-init: the application's own role, owner of the database). All of it happens in a
# folder beside PGDATA, renamed into place only when every step passed: a start that fails
# half-way starts afresh the next time. Every start: exec postgres with the container's arguments.
set -eu
# The superuser's password is a file's (POSTGRES_PASSWORD_FILE, the official image's convention):
# initdb reads it there, and no password is ever in this process's environment or a command line.
: "${PGDATA:?}" "${POSTGRES_USER:?}" "${POSTGRES_PASSWORD_FILE:?}" "${POSTGRES_DB:?}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  init="$PGDATA.init"
  # Neither holds a cluster (no PG_VERSION): what a failed first start left.
  rm -rf "$init" "$PGDATA"
  mkdir -p "$init"
  chmod 700 "$init"
  initdb -D "$init" -U "$POSTGRES_USER" --pwfile="$POSTGRES_PASSWORD_FILE" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$init/pg_hba.conf"
  pg_ctl -D "$init" -w -s -o "-c listen_addresses=''" start
  psql -v ON_ERROR_STOP=1 -q -U "$POSTGRES_USER" -d postgres <<'SQL'
\getenv db POSTGRES_DB
CREATE DATABASE :"db";
SQL
  initdb=/docker-entrypoint-initdb.d
  for script in "$initdb"/*.sh; do
    [ -e "$script" ] || continue
    echo "pg-entrypoint: running $script"
    # shellcheck disable=SC1090 # sourced, as the official image sources a script it cannot run
    . "$script"
  done
  pg_ctl -D "$init" -w -s -m fast stop
  mv "$init" "$PGDATA"
  echo "pg-entrypoint: initialised $PGDATA with database $POSTGRES_DB"
fi
# A volume's fsGroup may have opened the data directory to its group: PostgreSQL wants 0700.
chmod 700 "$PGDATA"
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
