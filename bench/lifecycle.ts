/**
 * npm run bench -- lifecycle
 * 1. POST /api/void throughput (32 connections, a different authorized payment per request)
 *    against the one-INSERT baseline route, in one run, on PostgreSQL (a throw-away database).
 * 2. Closing one settlement batch of 50,000 authorized payments: wall time, on PostgreSQL and on
 *    an in-memory PGlite.
 * Payments are inserted directly with SQL (the payment API is measured by `bench -- payments`).
 * Targets (PostgreSQL): void throughput >= 25 % of the baseline's (a void is two short
 * transactions around the processor call, about seven statements); a 50,000-payment batch
 * closes in under 10 s.
 */
import { ManualClock } from '../src/platform/clock.ts';
import { testConfig } from '../src/config.ts';
import { cryptoIds } from '../src/platform/ids.ts';
import { createServices } from '../src/composition.ts';
import { type Store, openPglite, openPostgres } from '../src/platform/database/database.ts';
import { migrate } from '../src/platform/database/migrate.ts';
import { withThrowawayDatabase } from './lib/database.ts';
import { load, startServer } from './lib/harness.ts';
import { seedTestPartner } from './lib/seed.ts';
import { createLogger } from '../src/platform/logging.ts';

const CONNECTIONS = 32;
const BATCH_SIZE = 50_000;

/** `count` approved, authorized card payments of the partner, authorized at `at`; returns their ids. */
async function insertAuthorized(store: Store, partner: { ClientId: string; processorId: string }, count: number, at: Date): Promise<string[]> {
  const rows = await store.sql.query<{ id: string }>(
    `INSERT INTO payments (id, partner_id, processor_id, duplicate_checked, method, payment_method_type_id, transaction_id,
       auth_code, response_code, message, successful, payment_result, process_status, total_amount_cents, lines_amount_cents, lines_tip_cents,
       lines_tax_cents, lines_fees_cents, lines_commission_cents, lines_partner_commission_cents, lines_platform_commission_cents, currency, created_at, processed_at)
     SELECT gen_random_uuid(), $1, $2, false, 'card', 3, 'BENCH' || md5(random()::text), 'A1B2C3', '0', 'Approved', true, 3, 2, 2500, 2500, 0, 0, 0, 0, 0, 0, 'USD', $3, $3
       FROM generate_series(1, $4)
     RETURNING id`,
    [partner.ClientId, partner.processorId, at.toISOString(), count],
  );
  return rows.map((r) => r.id);
}

async function voidThroughput(url: string, seconds: number) {
  const server = await startServer({ DATABASE_URL: url, DATABASE_POOL_SIZE: '20', VAULT_KEY: Buffer.alloc(32, 7).toString('base64') });
  const store = openPostgres(url, 4);
  try {
    const partner = server.info.partner as unknown as { ClientId: string; processorId: string };
    // More payments than the run can void, so every request finds an authorized one.
    const ids = await insertAuthorized(store, partner, Math.max(40_000, seconds * 6_000), new Date());
    let next = 0;
    const headers = { AccessToken: server.info.token, 'content-type': 'application/json' };
    const voids = {
      url: `${server.url}/api/void`,
      method: 'POST' as const,
      headers,
      connections: CONNECTIONS,
      // autocannon calls setupRequest only for entries of `requests`, not as a top-level option.
      requests: [{ method: 'POST' as const, setupRequest: (req: object) => ({ ...req, body: JSON.stringify({ PaymentGuid: ids[next++ % ids.length], Reason: 'benchmark' }) }) }],
    };
    const baseline = { url: `${server.url}/api/probe/insert`, method: 'POST' as const, headers, connections: CONNECTIONS, body: '{"n":1}' };
    await load({ ...baseline, seconds: 2 });
    await load({ ...voids, seconds: 2 });
    const base = await load({ ...baseline, seconds });
    const before = next;
    const result = await load({ ...voids, seconds });
    const approved = await store.sql.query<{ n: string }>("SELECT count(*) AS n FROM payment_adjustments WHERE status = 'approved'");
    if (result.non2xx > 0 || result.errors > 0) throw new Error(`void run had ${result.non2xx} non-2xx answers and ${result.errors} errors`);
    const ratio = result.requestsPerSec / base.requestsPerSec;
    return {
      connections: CONNECTIONS,
      baselineInsert: base,
      void: result,
      voidRequestsSent: next - before,
      approvedVoidsInDatabase: Number(approved[0]!.n),
      voidToBaselineRatio: Number(ratio.toFixed(3)),
      meetsTarget: ratio >= 0.25,
    };
  } finally {
    await store.close();
    await server.stop();
  }
}

async function settlementTime(store: Store) {
  await migrate(store);
  const clock = new ManualClock(new Date(Date.now() - 3600_000));
  const services = createServices({ log: createLogger('warn'), store, clock, ids: cryptoIds, config: testConfig() });
  const partner = await seedTestPartner(services, `Bench settlement ${Date.now()}`, 'non-profit');
  await insertAuthorized(store, partner, BATCH_SIZE, clock.now());
  clock.advance(60_000);
  const started = performance.now();
  const run = await services.settlement.settle();
  const ms = performance.now() - started;
  return {
    payments: run.batch.settledCount,
    settleMs: Math.round(ms),
    paymentsPerSec: Math.round(run.batch.settledCount / (ms / 1000)),
    meetsTarget: run.batch.settledCount === BATCH_SIZE && ms < 10_000,
  };
}

export async function run(options: { seconds: number }) {
  const postgres = await withThrowawayDatabase('lifecycle', async (url) => ({
    voids: await voidThroughput(url, options.seconds),
  }));
  const postgresSettlement = await withThrowawayDatabase('settlement', async (url) => {
    const store = openPostgres(url, 4);
    try {
      return await settlementTime(store);
    } finally {
      await store.close();
    }
  });
  const pglite = await openPglite();
  let pgliteSettlement;
  try {
    pgliteSettlement = await settlementTime(pglite);
  } finally {
    await pglite.close();
  }
  return {
    target: 'PostgreSQL: void >= 25 % of the one-INSERT baseline; a 50,000-payment batch closes in < 10 s',
    postgres: { ...postgres, settlement: postgresSettlement },
    pglite: { settlement: pgliteSettlement },
  };
}
