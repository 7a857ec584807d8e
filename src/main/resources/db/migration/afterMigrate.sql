-- Flyway's history is the schema owner's alone to write: the service's role reads it (readiness
-- waits for the schema this build needs) and may change none of it, where a forged or deleted row
-- would make the owner's next migration skip or repeat a version. The owner's default privileges
-- (deploy/k8s/base/service-grants.sql) give the service's role every table the owner makes, this
-- one too; Flyway runs this as the owner after every migration (idempotent), taking back all but
-- SELECT from every other role.
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
