#!/usr/bin/env bash
# ./lab k8s secret: the database's bootstrap superuser (admin-*), the schema's owner (owner-*: the
# migration Job's) and the service's own role (username, password: rows, no schema), each with a
# random password; and the database's TLS (db-tls/: a CA of its own, the server's certificate and
# key). A file from before gains the roles it lacks; a database volume made before keeps its old roles.
set -euo pipefail
source "$(dirname "$0")/lib.sh"

f=deploy/k8s/base/db-credentials.env tls=deploy/k8s/base/db-tls added=()
secret() { head -c 24 /dev/urandom | base64 | tr -d '/+='; }
# role KEY NAME: the role's two lines (KEY-username=NAME, KEY-password) appended to a file from before
# that lacks them.
role() {
  grep -q "^$1-username=" "$f" && return
  (umask 077 && printf '%s-username=%s\n%s-password=%s\n' "$1" "$2" "$1" "$(secret)" >>"$f")
  added+=("$1-username" "$1-password")
}

if [[ ! -f $tls/ca.crt || ! -f $tls/tls.crt || ! -f $tls/tls.key ]]; then
  bash scripts/k8s/db-tls.sh "$tls"
  log "k8s: wrote $tls/ (gitignored: the database's CA, certificate and key; the CA's key is not kept)"
fi
if [[ ! -f $f ]]; then
  (umask 077 && printf 'admin-username=postgres\nadmin-password=%s\nowner-username=loomlab_owner\nowner-password=%s\nusername=loomlab\npassword=%s\n' "$(secret)" "$(secret)" "$(secret)" >"$f")
  log "k8s: wrote $f (gitignored; kubectl apply -k deploy/k8s/base turns it into the Secret)"
  exit 0
fi
role admin postgres
role owner loomlab_owner
if ((${#added[@]})); then
  log "k8s: $f lacked roles: added ${added[*]} (a database volume made before keeps its old roles: delete its claim, data-postgres-0, to start afresh)"
else
  log "k8s: $f exists, kept"
fi
