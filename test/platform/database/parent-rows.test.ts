import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cardPaymentInput, createTestContext, type TestContext } from '../../helpers/context.ts';

/**
 * Payments and tokens carry no foreign keys to the partner, processor, organization and
 * integration source rows (a lock on rows every payment shares); triggers keep a row they refer
 * to instead: never deleted, re-keyed or truncated away (migrations/0012_no_parent_row_locks.sql).
 */
let ctx: TestContext;
let paymentId: string;
beforeAll(async () => {
  ctx = await createTestContext();
  const partner = await ctx.services.sessions.authenticate(await ctx.token(ctx.nonProfit));
  const record = await ctx.services.payments.payCard(partner!, cardPaymentInput(2500));
  expect(record.payment.successful).toBe(true);
  paymentId = record.payment.id;
});
afterAll(() => ctx.close());

const kept = /that payment(s|_tokens) refers to are never deleted and keep their id/;

describe('rows payments refer to', () => {
  const parents = () =>
    [
      ['partners', ctx.nonProfit.ClientId],
      ['processors', ctx.nonProfit.processorId],
      ['organizations', ctx.nonProfit.organizationId!],
      ['integration_sources', ctx.nonProfit.integrationSourceId],
    ] as const;

  it('the payment points at each of them', async () => {
    const [row] = await ctx.store.sql.query<Record<string, string>>(
      'SELECT partner_id, processor_id, organization_id, integration_source_id FROM payments WHERE id = $1',
      [paymentId],
    );
    expect(row).toEqual({
      partner_id: ctx.nonProfit.ClientId,
      processor_id: ctx.nonProfit.processorId,
      organization_id: ctx.nonProfit.organizationId,
      integration_source_id: ctx.nonProfit.integrationSourceId,
    });
  });

  it('cannot be deleted, re-keyed or truncated', async () => {
    for (const [table, id] of parents()) {
      await expect(ctx.store.sql.query(`DELETE FROM ${table} WHERE id = $1`, [id]), `${table} delete`).rejects.toThrow(kept);
      await expect(ctx.store.sql.query(`UPDATE ${table} SET id = gen_random_uuid() WHERE id = $1`, [id]), `${table} re-key`).rejects.toThrow(kept);
      await expect(ctx.store.sql.exec(`TRUNCATE ${table} CASCADE`), `${table} truncate`).rejects.toThrow(kept);
      const [still] = await ctx.store.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} WHERE id = $1`, [id]);
      expect(still!.n, `${table} row still there`).toBe(1);
    }
  });

  it('can still be changed in every other column', async () => {
    for (const [table, id] of parents()) {
      const updated = await ctx.store.sql.query(`UPDATE ${table} SET name = name || ' (renamed)' WHERE id = $1 RETURNING id`, [id]);
      expect(updated, table).toHaveLength(1);
    }
    // The partner can still be disabled (the operator's way to stop one).
    await ctx.store.sql.query(`UPDATE partners SET status = 'disabled' WHERE id = $1`, [ctx.nonProfit.ClientId]);
    await ctx.store.sql.query(`UPDATE partners SET status = 'active' WHERE id = $1`, [ctx.nonProfit.ClientId]);
  });

  it('can be deleted while nothing refers to them (one created by mistake)', async () => {
    const partnerId = ctx.nonProfit.ClientId;
    const id = crypto.randomUUID();
    await ctx.store.sql.query(
      `INSERT INTO processors (id, partner_id, name, mkey, payment_method_types, created_at) VALUES ($1, $2, 'Mistake', $3, '{1}', now())`,
      [id, partnerId, `mistake-${id}`],
    );
    await ctx.store.sql.query(`INSERT INTO organizations (id, partner_id, name, created_at) VALUES ($1, $2, 'Mistake', now())`, [id, partnerId]);
    await ctx.store.sql.query(`INSERT INTO integration_sources (id, partner_id, name, created_at) VALUES ($1, $2, 'Mistake', now())`, [id, partnerId]);
    for (const table of ['processors', 'organizations', 'integration_sources']) {
      await ctx.store.sql.query(`UPDATE ${table} SET id = gen_random_uuid() WHERE id = $1`, [id]);
      const deleted = await ctx.store.sql.query(`DELETE FROM ${table} WHERE partner_id = $1 AND name = 'Mistake' RETURNING id`, [partnerId]);
      expect(deleted, table).toHaveLength(1);
    }
  });

  it('a partner a token refers to (with no payment) is kept too', async () => {
    const partnerId = crypto.randomUUID();
    await ctx.store.sql.query(
      `INSERT INTO partners (id, name, kind, client_secret_hash, api_key_hash, created_at) VALUES ($1, 'Token only', 'non-profit', 'x', 'x', now())`,
      [partnerId],
    );
    await ctx.services.tokens.tokenizeCard(partnerId, { cardNumber: '4242424242424242', expMonth: '12', expYear: '35', source: 'api' });
    await expect(ctx.store.sql.query('DELETE FROM partners WHERE id = $1', [partnerId])).rejects.toThrow(/partners that payment_tokens refers to/);
    await ctx.store.sql.query('DELETE FROM payment_tokens WHERE partner_id = $1', [partnerId]);
    expect(await ctx.store.sql.query('DELETE FROM partners WHERE id = $1 RETURNING id', [partnerId])).toHaveLength(1);
  });

  it('are not locked by a payment insert (no foreign key from payments or tokens to them)', async () => {
    const rows = await ctx.store.sql.query<{ conname: string }>(
      `SELECT conname FROM pg_constraint
        WHERE contype = 'f' AND conrelid IN ('payments'::regclass, 'payment_tokens'::regclass)
          AND confrelid IN ('partners'::regclass, 'processors'::regclass, 'organizations'::regclass, 'integration_sources'::regclass)`,
    );
    expect(rows).toEqual([]);
  });
});
