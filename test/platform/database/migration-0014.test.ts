import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPaymentInput, createTestContext, type TestContext } from '../../helpers/context.ts';

/**
 * 0012 was edited after its first version had been applied by some databases (commits 810ce94 to
 * d0c96de); 0014 brings those to its final form (an upgrade audit). The first version, as it was:
 */
const FIRST_0012_TRIGGERS = `
DROP TRIGGER partners_kept ON partners; DROP TRIGGER processors_kept ON processors;
DROP TRIGGER organizations_kept ON organizations; DROP TRIGGER integration_sources_kept ON integration_sources;
DROP TRIGGER partners_not_truncated ON partners; DROP TRIGGER processors_not_truncated ON processors;
DROP TRIGGER organizations_not_truncated ON organizations; DROP TRIGGER integration_sources_not_truncated ON integration_sources;
CREATE FUNCTION refuse_parent_row_removal() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND NEW.id = OLD.id THEN
    RETURN NEW;
  END IF;
  RAISE EXCEPTION 'rows of % are never deleted and keep their id: payments and tokens refer to them', TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER partners_kept BEFORE DELETE OR UPDATE OF id ON partners FOR EACH ROW EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER processors_kept BEFORE DELETE OR UPDATE OF id ON processors FOR EACH ROW EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER organizations_kept BEFORE DELETE OR UPDATE OF id ON organizations FOR EACH ROW EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER integration_sources_kept BEFORE DELETE OR UPDATE OF id ON integration_sources FOR EACH ROW EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER partners_not_truncated BEFORE TRUNCATE ON partners FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER processors_not_truncated BEFORE TRUNCATE ON processors FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER organizations_not_truncated BEFORE TRUNCATE ON organizations FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_row_removal();
CREATE TRIGGER integration_sources_not_truncated BEFORE TRUNCATE ON integration_sources FOR EACH STATEMENT EXECUTE FUNCTION refuse_parent_row_removal();
`;
const MIGRATION_0014 = readFileSync(join(import.meta.dirname, '../../../src/platform/database/migrations/0014_parent_row_triggers_again.sql'), 'utf8');

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
  const partner = await ctx.services.sessions.authenticate(await ctx.token(ctx.nonProfit));
  expect((await ctx.services.payments.payCard(partner!, cardPaymentInput(2500))).payment.successful).toBe(true);
});
afterAll(() => ctx.close());

const addMistake = async () => {
  const id = crypto.randomUUID();
  await ctx.store.sql.query(
    `INSERT INTO processors (id, partner_id, name, mkey, payment_method_types, created_at) VALUES ($1, $2, 'Mistake', $3, '{1}', now())`,
    [id, ctx.nonProfit.ClientId, `mistake-${id}`],
  );
  return id;
};

describe('migration 0014 on a database that applied the first version of 0012', () => {
  it('lets a row nothing refers to be deleted again, keeps the referenced ones, and leaves no old function', async () => {
    await ctx.store.sql.exec(FIRST_0012_TRIGGERS);
    const before = await addMistake();
    await expect(ctx.store.sql.query('DELETE FROM processors WHERE id = $1', [before])).rejects.toThrow(/never deleted/);

    await ctx.store.sql.exec(MIGRATION_0014);
    expect(await ctx.store.sql.query('DELETE FROM processors WHERE id = $1 RETURNING id', [before])).toHaveLength(1);
    await expect(ctx.store.sql.query('DELETE FROM processors WHERE id = $1', [ctx.nonProfit.processorId])).rejects.toThrow(
      /that payments refers to are never deleted/,
    );
    await expect(ctx.store.sql.exec('TRUNCATE partners CASCADE')).rejects.toThrow(/never deleted/);
    expect(await ctx.store.sql.query(`SELECT 1 FROM pg_proc WHERE proname = 'refuse_parent_row_removal'`)).toHaveLength(0);
    // On a database that already had the final form (every other one), it changes nothing: applied twice, the same.
    await ctx.store.sql.exec(MIGRATION_0014);
    const after = await addMistake();
    expect(await ctx.store.sql.query('DELETE FROM processors WHERE id = $1 RETURNING id', [after])).toHaveLength(1);
  });
});
