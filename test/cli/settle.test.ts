import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { parseAsOf } from '../../src/cli/commands/settle.ts';
import { testConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices } from '../../src/composition.ts';
import { openStore } from '../../src/platform/database/database.ts';
import { cardPaymentInput, seedTestPartner } from '../helpers/context.ts';
import { testDatabaseUrl } from '../helpers/database-url.ts';
import { runCliProcess } from '../helpers/process.ts';
import { processStore } from '../helpers/store.ts';
import { testLogger } from '../helpers/logger.ts';

/** `npx payments settle` as a process, on this run's kind of store, with payments made beforehand. */
let env: Record<string, string>;
let cleanup: () => Promise<void>;
const paymentIds: string[] = [];

const openIt = () => openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 2 });

beforeAll(async () => {
  ({ env, cleanup } = await processStore('settle'));
  // Three approved payments, one hour apart, made in the past (the CLI runs on the real clock).
  await makePayments('2026-01-10T08:00:00.000Z', 3);
});
afterAll(() => cleanup());

/** `count` approved card payments an hour apart from `start`, made through the payment service. */
async function makePayments(start: string, count: number) {
  const store = await openIt();
  try {
    const clock = new ManualClock(start);
    const services = createServices({ log: testLogger(), store, clock, ids: cryptoIds, config: testConfig() });
    const partner = await seedTestPartner(services, `Settle CLI partner ${paymentIds.length}`, 'non-profit');
    const auth = { id: partner.ClientId, name: partner.name, kind: partner.kind };
    for (let i = 0; i < count; i++) {
      const record = await services.payments.payCard(auth, cardPaymentInput(2500));
      paymentIds.push(record.payment.id);
      clock.advance(3600_000);
    }
  } finally {
    await store.close();
  }
}

const cli = (...args: string[]) => runCliProcess(['settle', ...args], env);

async function statuses(): Promise<{ id: string; process_status: number; settlement_batch_id: string | null }[]> {
  const store = await openIt();
  try {
    return await store.sql.query('SELECT id, process_status, settlement_batch_id FROM payments WHERE id = ANY($1::uuid[]) ORDER BY created_at', [paymentIds]);
  } finally {
    await store.close();
  }
}

// Each command is a process that opens the store (PGlite: a second or more, longer under load).
describe('payments settle', { timeout: 180_000 }, () => {
  it('settles every payment authorized up to --as-of (UTC when no zone is given)', async () => {
    const res = await cli('--as-of', '2026-01-10T09:30');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('Closed settlement batch #1 as of 2026-01-10T09:30:00.000Z.');
    expect(res.stdout).toContain('payments settled: 2   ACH refunds completed: 0');
    expect(res.stdout).toContain('USD: settled 2 for 50.00; refunded 0 for 0.00');
    expect((await statuses()).map((p) => p.process_status)).toEqual([4, 4, 2]);
  });

  it('is idempotent: the same moment again changes nothing', async () => {
    const res = await cli('--as-of', '2026-01-10T10:30:00+01:00', '--json');
    expect(res.code).toBe(0);
    const out = JSON.parse(res.stdout);
    expect(out).toMatchObject({ created: false, batchNo: 1, asOf: '2026-01-10T09:30:00.000Z', settledCount: 2, trigger: 'operator' });
    expect((await statuses()).map((p) => p.process_status)).toEqual([4, 4, 2]);
  });

  it('without --as-of settles everything authorized up to now', async () => {
    const res = await cli('--json');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toMatchObject({ created: true, settledCount: 1 });
    const rows = await statuses();
    expect(rows.map((p) => p.process_status)).toEqual([4, 4, 4]);
    expect(rows[2]!.settlement_batch_id).not.toBe(rows[0]!.settlement_batch_id);
  });

  it('refuses a bare date, a malformed moment and a moment in the future, all as bad arguments (exit 2)', async () => {
    const bare = await cli('--as-of', '2026-01-10');
    expect(bare.code).toBe(2);
    expect(bare.stderr).toMatch(/--as-of must be a date-time/);
    expect((await cli('--as-of', 'yesterday')).code).toBe(2);
    // Was: exit 1, which the README keeps for a command that failed.
    const future = await cli('--as-of', '2999-01-01T00:00:00Z');
    expect(future.code).toBe(2);
    expect(future.stderr).toMatch(/^error: --as-of: The settlement moment 2999-01-01T00:00:00\.000Z is in the future \(now is .*\)\.\nusage: payments settle /);
  });

  it.skipIf(!testDatabaseUrl())('two operators at once on PostgreSQL: one batch, each payment once', async () => {
    await makePayments('2026-01-10T20:00:00.000Z', 2);
    const [a, b] = await Promise.all([cli('--as-of', '2026-01-11T00:00:00Z', '--json'), cli('--as-of', '2026-01-11T00:00:00Z', '--json')]);
    expect([a.code, b.code]).toEqual([0, 0]);
    const outs = [JSON.parse(a.stdout), JSON.parse(b.stdout)];
    expect(outs.filter((o) => o.created)).toHaveLength(1);
    expect(outs[0].batchId).toBe(outs[1].batchId);
    expect(outs[0].settledCount).toBe(2);
    const rows = await statuses();
    expect(rows.slice(3).map((p) => [p.process_status, p.settlement_batch_id])).toEqual([
      [4, outs[0].batchId],
      [4, outs[0].batchId],
    ]);
  });
});

describe('parseAsOf', () => {
  it('takes real moments, UTC when no zone is given', () => {
    expect(parseAsOf('2026-02-28T23:59:59Z').toISOString()).toBe('2026-02-28T23:59:59.000Z');
    expect(parseAsOf('2028-02-29 10:30').toISOString()).toBe('2028-02-29T10:30:00.000Z');
    expect(parseAsOf('2026-01-10T10:30:00+01:00').toISOString()).toBe('2026-01-10T09:30:00.000Z');
  });

  it('refuses a moment that does not exist instead of rolling it over', () => {
    for (const text of ['2026-02-30T00:00:00Z', '2026-04-31 23:59', '2026-01-10T24:00', '2026-01-10T10:60', '2026-01-10T10:30:61Z', '2027-02-29T00:00', '2026-01-10T10:30+24:00']) {
      expect(() => parseAsOf(text), text).toThrow(/--as-of must be a date-time/);
    }
  });

  it('refuses a year before 2000 (a mistyped 0026 was settled, then echoed as 2026)', () => {
    for (const text of ['0001-01-01T00:00:00Z', '0026-11-21T02:00Z', '1999-12-31T23:59:59Z']) expect(() => parseAsOf(text), text).toThrow(/--as-of must be in 2000 or later/);
    expect(parseAsOf('2000-01-01T00:00:00Z').toISOString()).toBe('2000-01-01T00:00:00.000Z');
  });
});
