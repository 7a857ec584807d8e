-- pgvector for the embedding tables of later migrations. Needs superuser or a role allowed to
-- create it; the local provisioning (scripts/db.sh) and the Kubernetes init create it first,
-- so here it is a no-op that documents and checks the dependency.
CREATE EXTENSION IF NOT EXISTS vector;
