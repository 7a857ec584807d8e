# shellcheck shell=sh
# Sourced by the database image's entrypoint at its first start (the official image's
# /docker-entrypoint-initdb.d convention, which the lab's own image follows), with the server up on
# its socket only and POSTGRES_DB made: the application's own role, login and nothing more, becomes
# the database's owner; pgvector is created in it (creating an extension needs a superuser, and
# Flyway's migration then finds it). The service logs in as that role, never as the superuser,
# which is refused over TCP.
# Names and password come from the environment (db-credentials), never from a command line.
psql -v ON_ERROR_STOP=1 -q -U "$POSTGRES_USER" -d "$POSTGRES_DB" <<'SQL'
\getenv app POSTGRES_APP_USER
\getenv pw POSTGRES_APP_PASSWORD
\getenv db POSTGRES_DB
\if :{?app}
\else
  \warn 'POSTGRES_APP_USER is not set'
  \quit 3
\endif
CREATE ROLE :"app" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'pw';
ALTER DATABASE :"db" OWNER TO :"app";
CREATE EXTENSION IF NOT EXISTS vector;
SQL
# The superuser logs in on the pod's own socket only: over TCP it is refused before any password is
# asked (pg_hba.conf is read first match first; the image has just written its "host all all"
# line). Read at the server's real start, which follows this script. The file is the running
# server's own (the lab's entrypoint initialises a folder beside PGDATA, renamed after this).
hba="$(psql -Atq -U "$POSTGRES_USER" -d "$POSTGRES_DB" -c 'SHOW hba_file')"
{
  printf '# loom-lab: the superuser never over TCP\nhost all %s all reject\n' "$POSTGRES_USER"
  cat "$hba"
} >"$hba.new"
mv "$hba.new" "$hba"
