import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { testConfig } from '../../../src/config.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { BillingService, DEFAULT_LEASE_MS } from '../../../src/modules/recurring/billing-service.ts';
import { BillingRepository } from '../../../src/modules/recurring/billing-repository.ts';
import { createServices, type Services } from '../../../src/composition.ts';
import { openPostgres, type Store } from '../../../src/platform/database/database.ts';
import { type TestPartner, seedTestPartner } from '../../helpers/context.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { freshDatabase, freshStore } from '../../helpers/store.ts';
import { testLogger } from '../../helpers/logger.ts';

/**
 * Two workers on the same due profiles. On PostgreSQL they are two stores (two connection pools,
 * as two server processes would have) on one database, so leases, SKIP LOCKED and the unique
 * index are really exercised; on PGlite (one connection) the two run interleaved in one process.
 */

const clock = new ManualClock('2026-11-21T12:00:00Z');
let storeA: Store;
let storeB: Store;
let a: Services;
let b: Services;
let partner: TestPartner;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  // A little processor latency so that the two workers' charges overlap in time.
  const config = testConfig({ simulatorLatencyMs: 3 });
  const url = testDatabaseUrl();
  if (url) {
    const db = await freshDatabase(url);
    storeA = openPostgres(db.url, 10);
    storeB = openPostgres(db.url, 10);
    cleanup = async () => {
      await storeA.close();
      await storeB.close();
      await db.drop();
    };
  } else {
    storeA = await freshStore();
    storeB = storeA;
    cleanup = () => storeA.close();
  }
  a = createServices({ log: testLogger(), store: storeA, clock, ids: cryptoIds, config });
  b = createServices({ log: testLogger(), store: storeB, clock, ids: cryptoIds, config, vault: a.vault });
  partner = await seedTestPartner(a, 'Concurrent Billing Partner', 'non-profit');
});
afterAll(() => cleanup());

const authenticated = () => ({ id: partner.ClientId, name: partner.name, kind: 'non-profit' as const });

async function dueProfiles(count: number, nextBillDate: string): Promise<string[]> {
  const token = await a.tokens.tokenizeCard(partner.ClientId, { cardNumber: '4242424242424242', expMonth: '12', expYear: '30', source: 'api' });
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const row = await a.recurringProfiles.create(authenticated(), {
      tokenRef: token.id,
      amountCents: 1000 + i,
      startDate: '2026-11-21',
      nextBillDate,
      frequency: 'Monthly',
    });
    ids.push(row.id);
  }
  return ids;
}

async function paymentsOf(ids: string[]) {
  return storeA.sql.query<{ recurring_profile_id: string; bill_date: string; successful: boolean; response_code: string }>(
    `SELECT recurring_profile_id, to_char(bill_date, 'YYYY-MM-DD') AS bill_date, successful, response_code
       FROM payments WHERE recurring_profile_id = ANY($1::uuid[])`,
    [ids],
  );
}

describe('two billing workers on the same due profiles', () => {
  it('charge every profile exactly once between them', async () => {
    const ids = await dueProfiles(60, '2026-12-01');
    clock.set('2026-12-01T06:00:00Z');
    const [ra, rb] = await Promise.all([
      a.billing.run({ batchSize: 5, concurrency: 4 }),
      b.billing.run({ batchSize: 5, concurrency: 4 }),
    ]);
    expect(ra.errors + rb.errors).toBe(0);
    expect(ra.approved + rb.approved).toBe(60);
    if (testDatabaseUrl()) {
      // Both really worked (on PostgreSQL the leases split the profiles between them).
      expect(ra.approved).toBeGreaterThan(0);
      expect(rb.approved).toBeGreaterThan(0);
    }
    const payments = await paymentsOf(ids);
    expect(payments.filter((p) => p.successful)).toHaveLength(60);
    // No refused duplicates either: the leases kept the workers apart.
    expect(payments).toHaveLength(60);
    const perProfile = new Map<string, number>();
    for (const p of payments) perProfile.set(p.recurring_profile_id, (perProfile.get(p.recurring_profile_id) ?? 0) + 1);
    expect([...perProfile.values()].every((n) => n === 1)).toBe(true);
    expect(perProfile.size).toBe(60);

    const rows = await storeA.sql.query<{ n: number | string }>(
      "SELECT count(*) AS n FROM recurring_profiles WHERE id = ANY($1::uuid[]) AND next_bill_date = '2027-01-01' AND lease_owner IS NULL",
      [ids],
    );
    expect(Number(rows[0]!.n)).toBe(60);

    // Both again: nothing left to charge.
    const again = await Promise.all([a.billing.run(), b.billing.run()]);
    expect(again[0].charged + again[1].charged).toBe(0);
    await storeA.sql.query("UPDATE recurring_profiles SET status = 'cancelled' WHERE id = ANY($1::uuid[])", [ids]);
  });

  it('a worker whose lease lapsed while it was charging: the next worker reconciles, nobody charges or advances twice', async () => {
    const [id] = await dueProfiles(1, '2026-12-02');
    clock.set('2026-12-02T06:00:00Z');
    let resume!: () => void;
    const gate = new Promise<void>((r) => (resume = r));
    let charged!: () => void;
    const chargedSignal = new Promise<void>((r) => (charged = r));
    const slow = new BillingService({
      log: testLogger(),
      repository: new BillingRepository(storeA),
      clock,
      ids: cryptoIds,
      payments: a.payments,
      retryDays: [1, 3, 7],
      faults: {
        afterCharge: async () => {
          charged();
          await gate;
        },
      },
    });
    const slowRun = slow.run();
    await chargedSignal;
    // The slow worker holds the profile past its lease.
    clock.advance(DEFAULT_LEASE_MS + 1000);
    const other = await b.billing.run();
    expect(other).toMatchObject({ claimed: 1, charged: 0, reconciled: 1 });
    resume();
    const first = await slowRun;
    expect(first).toMatchObject({ charged: 1, errors: 0 });

    const payments = await paymentsOf([id!]);
    expect(payments).toEqual([expect.objectContaining({ bill_date: '2026-12-02', successful: true })]);
    const [row] = await storeA.sql.query<{ next_bill_date: string; lease_owner: string | null }>(
      "SELECT to_char(next_bill_date, 'YYYY-MM-DD') AS next_bill_date, lease_owner FROM recurring_profiles WHERE id = $1",
      [id],
    );
    expect(row).toEqual({ next_bill_date: '2027-01-02', lease_owner: null });
  });
});
