#!/usr/bin/env bash
# The database's TLS in the cluster: a CA of its own and the server's certificate and key, signed
# by it, for the Service name the service connects to (postgres) and its namespaced forms. The CA's
# key signs once and is deleted: nothing can sign another server later. The clients trust ca.crt
# (sslmode=verify-full: the chain and the name); the database alone reads tls.key.
#
#   scripts/k8s/db-tls.sh DIR [NAMESPACE] [EXTRA-SAN ...]   # writes DIR/{ca.crt,tls.crt,tls.key}
#   defaults: loom-lab; an extra SAN as openssl writes one (e.g. IP:127.0.0.1, for a test)
set -euo pipefail
umask 077
dir="$1" ns="${2:-loom-lab}"
shift $(($# < 2 ? $# : 2))
san="DNS:postgres,DNS:postgres.$ns,DNS:postgres.$ns.svc,DNS:postgres.$ns.svc.cluster.local"
for extra in "$@"; do san+=",$extra"; done
mkdir -p "$dir"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
curve=(-newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes)
openssl req -x509 "${curve[@]}" -days 825 -subj "/CN=loom-lab database CA" \
  -keyout "$work/ca.key" -out "$work/ca.crt" 2>/dev/null
openssl req -new "${curve[@]}" -subj "/CN=postgres" -keyout "$work/tls.key" -out "$work/tls.csr" 2>/dev/null
printf 'subjectAltName=%s\nbasicConstraints=critical,CA:FALSE\nkeyUsage=critical,digitalSignature\nextendedKeyUsage=serverAuth\n' \
  "$san" >"$work/ext"
openssl x509 -req -in "$work/tls.csr" -CA "$work/ca.crt" -CAkey "$work/ca.key" -CAcreateserial -days 825 \
  -extfile "$work/ext" -out "$work/tls.crt" 2>/dev/null
mv "$work/ca.crt" "$work/tls.crt" "$work/tls.key" "$dir/"
