import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testConfig } from '../../src/config.ts';
import { addDays, utcDate } from '../../src/domain/billing-dates.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices } from '../../src/composition.ts';
import { openStore } from '../../src/platform/database/database.ts';
import { seedTestPartner } from '../helpers/context.ts';
import { testDatabaseUrl } from '../helpers/database-url.ts';
import { runCliProcess } from '../helpers/process.ts';
import { freshDatabase } from '../helpers/store.ts';
import { testLogger } from '../helpers/logger.ts';

/** `npx payments billing run|status` as an operator runs them, on this run's kind of store. */

let env: Record<string, string>;
let cleanup: () => Promise<void>;
const today = utcDate(new Date());
const billDate = addDays(today, 3);

const open = () => openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 2 });

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-billing-cli-'));
  const vaultKey = randomBytes(32).toString('base64');
  const url = testDatabaseUrl();
  if (url) {
    const db = await freshDatabase(url);
    env = { DATA_DIR: dataDir, DATABASE_URL: db.url, VAULT_KEY: vaultKey };
    cleanup = async () => {
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
    };
  } else {
    env = { DATA_DIR: dataDir, VAULT_KEY: vaultKey };
    cleanup = async () => rmSync(dataDir, { recursive: true, force: true });
  }
  // Two profiles due in three days: one on a card the simulator approves, one it declines.
  const store = await open();
  try {
    const services = createServices({ log: testLogger(), store, clock: new ManualClock(new Date()), ids: cryptoIds, config: testConfig({ vaultKey, dataDir }) });
    const partner = await seedTestPartner(services, 'CLI Billing Partner', 'non-profit');
    const who = { id: partner.ClientId, name: partner.name, kind: 'non-profit' as const };
    for (const cardNumber of ['4242424242424242', '4000000000000002']) {
      const token = await services.tokens.tokenizeCard(partner.ClientId, { cardNumber, expMonth: '12', expYear: '35', source: 'api' });
      await services.recurringProfiles.create(who, { tokenRef: token.id, amountCents: 1500, startDate: today, nextBillDate: billDate, frequency: 'Weekly' });
    }
  } finally {
    await store.close();
  }
});
afterAll(() => cleanup());

const cli = (...args: string[]) => runCliProcess(args, env);

describe('payments billing', { timeout: 180_000 }, () => {
  it('status counts the profiles and those due', async () => {
    const res = await cli('billing', 'status', '--as-of', billDate, '--json');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ asOf: billDate, byStatus: { active: 2, suspended: 0, completed: 0, cancelled: 0 }, due: 2, leased: 0 });
    const text = await cli('billing', 'status');
    expect(text.stdout).toMatch(/due now\s+0/);
  });

  it('run charges what is due as of the date, once', async () => {
    const early = await cli('billing', 'run', '--as-of', addDays(billDate, -1), '--ahead', '--json');
    expect(early.code).toBe(0);
    expect(JSON.parse(early.stdout)).toMatchObject({ claimed: 0, charged: 0 });

    // After today: refused unless the operator says --ahead (it charges payers early).
    const refused = await cli('billing', 'run', '--as-of', billDate);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/is after today .* add --ahead/);
    expect(refused.stdout).toBe('');

    const res = await cli('billing', 'run', '--as-of', billDate, '--ahead');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`Billing run as of ${billDate}`);
    expect(res.stdout).toMatch(/charges 2: approved 1, declined 1/);

    const again = await cli('billing', 'run', '--as-of', billDate, '--ahead', '--json');
    expect(JSON.parse(again.stdout)).toMatchObject({ charged: 0 });

    const store = await open();
    try {
      const rows = await store.sql.query<{ bill_date: string; successful: boolean }>(
        "SELECT to_char(bill_date, 'YYYY-MM-DD') AS bill_date, successful FROM payments WHERE recurring_profile_id IS NOT NULL ORDER BY successful",
      );
      expect(rows).toEqual([
        { bill_date: billDate, successful: false },
        { bill_date: billDate, successful: true },
      ]);
      const profiles = await store.sql.query<{ next_bill_date: string; failed_attempts: number }>(
        "SELECT to_char(next_bill_date, 'YYYY-MM-DD') AS next_bill_date, failed_attempts FROM recurring_profiles ORDER BY failed_attempts",
      );
      expect(profiles).toEqual([
        { next_bill_date: addDays(billDate, 7), failed_attempts: 0 },
        { next_bill_date: billDate, failed_attempts: 1 },
      ]);
    } finally {
      await store.close();
    }
  });

  it.skipIf(!testDatabaseUrl())('two runs in two processes at once on PostgreSQL charge every due profile exactly once', async () => {
    // 100 more profiles, due on a day of their own; a processor latency makes the runs overlap.
    const day = addDays(billDate, 2);
    const store = await open();
    let ids: string[];
    try {
      const services = createServices({ log: testLogger(), store, clock: new ManualClock(new Date()), ids: cryptoIds, config: testConfig({ vaultKey: env.VAULT_KEY, dataDir: env.DATA_DIR }) });
      const partner = await seedTestPartner(services, 'CLI Billing Partner, two runs', 'non-profit');
      const who = { id: partner.ClientId, name: partner.name, kind: 'non-profit' as const };
      const token = await services.tokens.tokenizeCard(partner.ClientId, { cardNumber: '4242424242424242', expMonth: '12', expYear: '35', source: 'api' });
      ids = [];
      for (let i = 0; i < 100; i++) {
        ids.push((await services.recurringProfiles.create(who, { tokenRef: token.id, amountCents: 1000 + i, startDate: today, nextBillDate: day, frequency: 'Monthly' })).id);
      }
    } finally {
      await store.close();
    }
    const run = () => runCliProcess(['billing', 'run', '--as-of', day, '--ahead', '--concurrency', '2', '--batch-size', '5', '--json'], { ...env, SIMULATOR_LATENCY_MS: '20' });
    const [one, two] = await Promise.all([run(), run()]);
    expect([one.code, two.code]).toEqual([0, 0]);
    const summaries = [JSON.parse(one.stdout), JSON.parse(two.stdout)];
    // Both processes charged some (the leases split the work), none twice.
    expect(Math.min(...summaries.map((s) => s.approved))).toBeGreaterThan(0);
    const check = await open();
    try {
      const rows = await check.sql.query<{ recurring_profile_id: string; n: number | string; ok: number | string }>(
        'SELECT recurring_profile_id, count(*) AS n, count(*) FILTER (WHERE successful) AS ok FROM payments WHERE recurring_profile_id = ANY($1::uuid[]) GROUP BY 1',
        [ids],
      );
      expect(rows).toHaveLength(100);
      expect(rows.every((r) => Number(r.n) === 1 && Number(r.ok) === 1)).toBe(true);
    } finally {
      await check.close();
    }
  });

  it('refuses a malformed --as-of', async () => {
    const res = await cli('billing', 'run', '--as-of', '2026-02-30');
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/--as-of must be a date yyyy-MM-dd/);
  });
});
