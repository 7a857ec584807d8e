-- Flyway's history is the schema owner's alone to write: the service's role reads it (readiness
-- waits for the schema this build needs) and may change none of it, where a forged or deleted row
-- would make the owner's next migration skip or repeat a version. The owner's default privileges
-- (deploy/k8s/base/service-grants.sql) gave the service's role every table the owner made, this one
-- too, when Flyway created it; this takes back from every other role all but SELECT, once. A local
-- database's start grants every table again and takes this one back at once (the same file).
-- A migration rather than an afterMigrate callback: Flyway runs a callback on a connection of its
-- own, which a pool of two (the pool-bound tests') cannot give beside the migration's.
DO $$
DECLARE
  other name;
BEGIN
  FOR other IN
    SELECT DISTINCT grantee FROM information_schema.role_table_grants
    WHERE table_schema = '${flyway:defaultSchema}' AND table_name = '${flyway:table}'
      AND grantee <> current_user AND privilege_type <> 'SELECT'
  LOOP
    EXECUTE format('REVOKE INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON %I.%I FROM %I',
                   '${flyway:defaultSchema}', '${flyway:table}', other);
  END LOOP;
END $$;
