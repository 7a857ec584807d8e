#!/bin/sh
# First start: initdb on the (empty) volume with the given superuser and password, TCP logins
# by password, the database created; every start: exec postgres with the container's arguments.
set -eu
: "${PGDATA:?}" "${POSTGRES_USER:?}" "${POSTGRES_PASSWORD:?}" "${POSTGRES_DB:?}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  mkdir -p "$PGDATA"
  chmod 700 "$PGDATA"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb -D "$PGDATA" -U "$POSTGRES_USER" --pwfile="$pwfile" -E UTF8 --locale=C.UTF-8 \
    --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  echo "host all all 0.0.0.0/0 scram-sha-256" >>"$PGDATA/pg_hba.conf"
  echo "CREATE DATABASE \"$POSTGRES_DB\";" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  echo "pg-entrypoint: initialised $PGDATA with database $POSTGRES_DB"
fi
# A volume's fsGroup may have opened the data directory to its group: PostgreSQL wants 0700.
chmod 700 "$PGDATA"
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
