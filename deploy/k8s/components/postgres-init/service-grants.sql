-- The service's role: the rows of the schema owner's tables, present and to come, and no schema.
-- PostgreSQL 15's public schema lets only the database's owner create in it; what the owner creates
-- there, the service may read and write. Run by a superuser on the database, with the psql
-- variables db, owner and app set: by postgres-init.sh at the cluster database's first start (no
-- tables yet) and by scripts/db.sh at every start of the local one (idempotent; a database
-- provisioned before the role existed has tables already, hence the grants on ALL TABLES).
GRANT CONNECT, TEMPORARY ON DATABASE :"db" TO :"app";
GRANT USAGE ON SCHEMA public TO :"app";
GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO :"app";
GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public
  GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO :"app";
ALTER DEFAULT PRIVILEGES FOR ROLE :"owner" IN SCHEMA public
  GRANT USAGE, SELECT ON SEQUENCES TO :"app";
-- Flyway's history, where it exists already (a database migrated before this start): every table's
-- rows but that one's, which the service may read and not change (db/migration/V5__... says why).
SELECT format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON public.flyway_schema_history FROM %I', :'app')
WHERE to_regclass('public.flyway_schema_history') IS NOT NULL \gexec
