# shellcheck shell=sh
# Sourced by the database image's entrypoint at its first start (the official image's
# /docker-entrypoint-initdb.d convention, which the lab's own image follows), with the server up on
# its socket only and POSTGRES_DB made. Two roles, login and nothing more: the schema's owner
# (POSTGRES_OWNER_*), owner of the database, whose migration Job creates and changes the tables; and
# the service's (POSTGRES_APP_*), which may read and write the rows of every table the owner makes
# (default privileges) and change no schema. pgvector is created in the database (creating an
# extension needs a superuser, and the migration then finds it). Neither role is the superuser,
# which is refused over TCP.
# Names come from the environment (db-credentials), passwords from the files it names
# (POSTGRES_*_PASSWORD_FILE, read by psql's own `cat` of the file's path): neither is ever on a
# command line, and no password is in the environment.
psql -v ON_ERROR_STOP=1 -q -U "$POSTGRES_USER" -d "$POSTGRES_DB" <<'SQL'
\getenv owner POSTGRES_OWNER_USER
\getenv ownerpwfile POSTGRES_OWNER_PASSWORD_FILE
\getenv app POSTGRES_APP_USER
\getenv pwfile POSTGRES_APP_PASSWORD_FILE
\getenv db POSTGRES_DB
\if :{?owner}
\else
  \warn 'POSTGRES_OWNER_USER is not set'
  \quit 3
\endif
\if :{?app}
\else
  \warn 'POSTGRES_APP_USER is not set'
  \quit 3
\endif
\if :{?ownerpwfile}
\else
  \warn 'POSTGRES_OWNER_PASSWORD_FILE is not set'
  \quit 3
\endif
\if :{?pwfile}
\else
  \warn 'POSTGRES_APP_PASSWORD_FILE is not set'
  \quit 3
\endif
\set ownerpw `cat :'ownerpwfile'`
\set pw `cat :'pwfile'`
CREATE ROLE :"owner" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'ownerpw';
CREATE ROLE :"app" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD :'pw';
ALTER DATABASE :"db" OWNER TO :"owner";
CREATE EXTENSION IF NOT EXISTS vector;
SQL
# The service's grants, as the local database has them (one file, service-grants.sql, beside this
# one in the init folder; the entrypoint names that folder). Role names are no secrets.
psql -v ON_ERROR_STOP=1 -q -U "$POSTGRES_USER" -d "$POSTGRES_DB" -v db="$POSTGRES_DB" \
  -v owner="$POSTGRES_OWNER_USER" -v app="$POSTGRES_APP_USER" \
  -f "${initdb:-/docker-entrypoint-initdb.d}/service-grants.sql"
# The superuser logs in on the pod's own socket only: over TCP it is refused before any password is
# asked (pg_hba.conf is read first match first; the image has just written its "host all all"
# line). Read at the server's real start, which follows this script. The file is the running
# server's own (the lab's entrypoint initialises a folder beside PGDATA, renamed after this).
# And every TCP connection is TLS (the server's certificate from db-tls): one in clear text is
# refused before any password is asked.
hba="$(psql -Atq -U "$POSTGRES_USER" -d "$POSTGRES_DB" -c 'SHOW hba_file')"
{
  printf '# loom-lab: the superuser never over TCP\nhost all %s all reject\n' "$POSTGRES_USER"
  printf '# loom-lab: TCP only over TLS\nhostnossl all all all reject\n'
  cat "$hba"
} >"$hba.new"
mv "$hba.new" "$hba"
