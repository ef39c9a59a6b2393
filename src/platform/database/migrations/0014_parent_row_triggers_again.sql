-- 0012 was edited after some databases had applied it (its first version, commits 810ce94 to
-- d0c96de, refused deleting any partner, processor, organization or integration source row, even
-- one nothing refers to). Migrations are applied by name, so those databases kept it (an upgrade
-- audit). This brings every database to 0012's final form; on the others it changes nothing.
CREATE OR REPLACE FUNCTION refuse_removing_referenced_row() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  i int := 0;
  referred boolean;
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
    RETURN NEW;
  END IF;
  WHILE i < TG_NARGS LOOP
    IF TG_LEVEL = 'ROW' THEN
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I = $1)', TG_ARGV[i], TG_ARGV[i + 1]) INTO referred USING OLD.id;
    ELSE
      EXECUTE format('SELECT EXISTS (SELECT 1 FROM %I WHERE %I IS NOT NULL)', TG_ARGV[i], TG_ARGV[i + 1]) INTO referred;
    END IF;
    IF referred THEN
      RAISE EXCEPTION 'rows of % that % refers to are never deleted and keep their id', TG_TABLE_NAME, TG_ARGV[i]
        USING ERRCODE = 'restrict_violation';
    END IF;
    i := i + 2;
  END LOOP;
  IF TG_OP = 'DELETE' THEN
    RETURN OLD;
  END IF;
  RETURN NEW;
END $$;

DROP TRIGGER IF EXISTS partners_kept ON partners;
DROP TRIGGER IF EXISTS processors_kept ON processors;
DROP TRIGGER IF EXISTS organizations_kept ON organizations;
DROP TRIGGER IF EXISTS integration_sources_kept ON integration_sources;
DROP TRIGGER IF EXISTS partners_not_truncated ON partners;
DROP TRIGGER IF EXISTS processors_not_truncated ON processors;
DROP TRIGGER IF EXISTS organizations_not_truncated ON organizations;
DROP TRIGGER IF EXISTS integration_sources_not_truncated ON integration_sources;
DROP FUNCTION IF EXISTS refuse_parent_row_removal();

CREATE TRIGGER partners_kept BEFORE DELETE OR UPDATE OF id ON partners
  FOR EACH ROW EXECUTE FUNCTION refuse_removing_referenced_row('payments', 'partner_id', 'payment_tokens', 'partner_id');
CREATE TRIGGER processors_kept BEFORE DELETE OR UPDATE OF id ON processors
  FOR EACH ROW EXECUTE FUNCTION refuse_removing_referenced_row('payments', 'processor_id');
CREATE TRIGGER organizations_kept BEFORE DELETE OR UPDATE OF id ON organizations
  FOR EACH ROW EXECUTE FUNCTION refuse_removing_referenced_row('payments', 'organization_id');
CREATE TRIGGER integration_sources_kept BEFORE DELETE OR UPDATE OF id ON integration_sources
  FOR EACH ROW EXECUTE FUNCTION refuse_removing_referenced_row('payments', 'integration_source_id');
CREATE TRIGGER partners_not_truncated BEFORE TRUNCATE ON partners
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_removing_referenced_row('payments', 'partner_id', 'payment_tokens', 'partner_id');
CREATE TRIGGER processors_not_truncated BEFORE TRUNCATE ON processors
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_removing_referenced_row('payments', 'processor_id');
CREATE TRIGGER organizations_not_truncated BEFORE TRUNCATE ON organizations
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_removing_referenced_row('payments', 'organization_id');
CREATE TRIGGER integration_sources_not_truncated BEFORE TRUNCATE ON integration_sources
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_removing_referenced_row('payments', 'integration_source_id');
