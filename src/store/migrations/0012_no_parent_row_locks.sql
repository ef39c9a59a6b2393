-- A foreign key check takes a FOR KEY SHARE lock on the referenced row. Every payment of a partner
-- references the same partner, processor, organization and integration source rows, and every
-- token the same partner row: under concurrent payments each insert locked four shared rows (a
-- multixact and a WAL record each), a third of the insert's time in the payment benchmark.
-- These constraints go; what they guaranteed is kept another way:
--  * the service writes only ids it has just read from these tables (the payment's references
--    query, the authenticated partner), and
--  * rows of these tables are never deleted and their ids never change: the triggers below refuse
--    it, so an id that existed when the payment was written exists for good.
-- Constraints on rows that are not shared by every request (a token, a recurring profile, a pay
-- link) stay. docs/decisions.md, "No foreign keys to shared parent rows".
ALTER TABLE payments
  DROP CONSTRAINT payments_partner_id_fkey,
  DROP CONSTRAINT payments_processor_id_fkey,
  DROP CONSTRAINT payments_organization_id_fkey,
  DROP CONSTRAINT payments_integration_source_id_fkey;
ALTER TABLE payment_tokens DROP CONSTRAINT payment_tokens_partner_id_fkey;

CREATE FUNCTION refuse_parent_row_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'rows of % are never deleted and keep their id: payments and tokens refer to them', TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END $$;

CREATE TRIGGER partners_kept BEFORE DELETE OR UPDATE OF id ON partners
  FOR EACH ROW EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER processors_kept BEFORE DELETE OR UPDATE OF id ON processors
  FOR EACH ROW EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER organizations_kept BEFORE DELETE OR UPDATE OF id ON organizations
  FOR EACH ROW EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER integration_sources_kept BEFORE DELETE OR UPDATE OF id ON integration_sources
  FOR EACH ROW EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER partners_not_truncated BEFORE TRUNCATE ON partners
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER processors_not_truncated BEFORE TRUNCATE ON processors
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER organizations_not_truncated BEFORE TRUNCATE ON organizations
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER integration_sources_not_truncated BEFORE TRUNCATE ON integration_sources
  FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_row_removal();
