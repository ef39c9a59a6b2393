import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { card } from '../../http/api/refund-void-fixtures.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const pay = (tranId: string) => ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: tranId }) });

// Migrations run at start-up next to live servers: a prepared statement must survive one.
describe.skipIf(!testDatabaseUrl())('prepared statements on PostgreSQL', () => {
  it('keep working on running servers after a migration adds a column to their table', async () => {
    // Enough payments for every pooled connection to have prepared the payment statements.
    const before = await Promise.all(Array.from({ length: 12 }, (_, i) => pay(`prepared-before-${i}`)));
    expect(before.every((r) => r.statusCode === 201 && r.json().Successful)).toBe(true);
    await ctx.store.sql.exec('ALTER TABLE payments ADD COLUMN added_by_a_later_migration text');
    const after = await Promise.all(Array.from({ length: 12 }, (_, i) => pay(`prepared-after-${i}`)));
    expect(after.map((r) => r.statusCode)).toEqual(Array(12).fill(201));
    expect(after.every((r) => r.json().Successful)).toBe(true);
  });
});
