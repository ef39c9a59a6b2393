-- A foreign key check takes a FOR KEY SHARE lock on the referenced row. Every payment of a partner
-- references the same partner, processor, organization and integration source rows, and every
-- token the same partner row: under concurrent payments each insert locked four shared rows (a
-- multixact and a WAL record each), a third of the insert's time in the payment benchmark.
-- These constraints go; what they guaranteed is kept another way:
--  * the service writes only ids it has just read from these tables (the payment's references
--    query, the authenticated partner), and
--  * a row a payment or token refers to cannot be deleted, re-keyed or truncated away: the
--    triggers below refuse it, as the foreign keys did (a row nothing refers to yet, say a
--    processor created by mistake, can still be deleted).
-- Constraints on rows that are not shared by every request (a token, a recurring profile, a pay
-- link) stay. docs/decisions.md, "No foreign keys from payments and tokens to the rows every
-- payment shares".
ALTER TABLE payments
  DROP CONSTRAINT payments_partner_id_fkey,
  DROP CONSTRAINT payments_processor_id_fkey,
  DROP CONSTRAINT payments_organization_id_fkey,
  DROP CONSTRAINT payments_integration_source_id_fkey;
ALTER TABLE payment_tokens DROP CONSTRAINT payment_tokens_partner_id_fkey;

-- Arguments: pairs of (referencing table, column). Row triggers check OLD.id; the TRUNCATE
-- trigger refuses while any row of a referencing table refers to the table at all. The checks
-- scan (as the foreign key checks on delete did): deleting these rows is rare.
CREATE FUNCTION refuse_removing_referenced_row() RETURNS trigger LANGUAGE plpgsql AS $$
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
