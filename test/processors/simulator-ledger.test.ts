import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testConfig } from '../../src/config.ts';
import { createServices } from '../../src/composition.ts';
import { openStore, type SqlClient, type Store } from '../../src/platform/database/database.ts';
import { DatabaseUnavailableError } from '../../src/platform/errors.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { resolveHeldOutcome } from '../../src/processors/held-outcome.ts';
import { LookupUnsupportedError, ProcessorTimeoutError, type SaleRequest } from '../../src/processors/processor.ts';
import { ProcessorRegistry } from '../../src/processors/registry.ts';
import { SimulatorProcessor } from '../../src/processors/simulator.ts';
import { SqlSimulatorLedger } from '../../src/processors/simulator-ledger.ts';
import { testDatabaseUrl } from '../helpers/database-url.ts';
import { testLogger } from '../helpers/logger.ts';
import { processStore } from '../helpers/store.ts';

/**
 * The simulator's look-ups are true across processes and restarts: it records what it does in
 * `simulator_ledger` before answering, and reads it back. Each "process" here is a store and a
 * composition of its own on one database.
 */

let env: Record<string, string>;
let cleanup: () => Promise<void>;
const clock = new ManualClock('2026-11-29T10:00:00.000Z');

beforeAll(async () => {
  ({ env, cleanup } = await processStore('ledger'));
});
afterAll(() => cleanup());

/** A server process on the test's database: its store and services. */
async function serverProcess(): Promise<{ store: Store; services: ReturnType<typeof createServices> }> {
  const store = await openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 4 });
  return { store, services: createServices({ store, clock, ids: cryptoIds, config: testConfig(), log: testLogger() }) };
}

const sale = (number: string, amountCents = 2500): SaleRequest => ({
  reference: randomUUID(),
  amountCents,
  currency: 'USD',
  card: { number, expMonth: '12', expYear: '30', cvv: '123', paymentMethodTypeId: 3 },
  billing: { name: 'Ada Lovelace', street: '1 Main St', zip: '12345' },
});

describe('the simulator ledger', () => {
  it('lets a process after a restart (and, on PostgreSQL, another one at the same time) look up what the first did', async () => {
    const first = await serverProcess();
    const simulator = first.services.processorAdapters.get('simulator');
    const approved = sale('4242424242424242', 101888);
    const declined = sale('4000000000000002');
    const a = await simulator.sale(approved);
    const d = await simulator.sale(declined);
    const voidReference = `${approved.reference}:reversal`;
    await simulator.void({ reference: voidReference, originalTransactionId: a.transactionId, amountCents: 101888, kind: 'card' });
    const refund = await simulator.refund({ reference: randomUUID(), originalTransactionId: d.transactionId, amountCents: 2500, kind: 'card' });

    let second: Awaited<ReturnType<typeof serverProcess>>;
    if (testDatabaseUrl()) {
      // PostgreSQL: two processes at once on one database.
      second = await serverProcess();
      await first.store.close();
    } else {
      // PGlite: one process at a time on a data directory; a restart.
      await first.store.close();
      second = await serverProcess();
    }
    try {
      const other = second.services.processorAdapters.get('simulator');
      const sentAt = clock.now();
      expect(await other.lookup({ kind: 'sale', reference: approved.reference, sentAt, amountCents: 101888 })).toEqual({
        found: true,
        outcome: 'approved',
        transactionId: a.transactionId,
        authCode: a.authCode,
        amountCents: 101888,
        voided: true,
        settledAt: null,
        status: 'voided',
      });
      expect(await other.lookup({ kind: 'sale', reference: declined.reference, sentAt, amountCents: 2500 })).toMatchObject({ found: true, outcome: 'declined', transactionId: d.transactionId, authCode: null, voided: false });
      expect(await other.lookup({ kind: 'void', reference: voidReference, sentAt, amountCents: 101888, originalTransactionId: a.transactionId })).toMatchObject({ found: true, outcome: 'approved' });
      expect(await other.lookup({ kind: 'refund', reference: (await second.store.sql.query<{ reference: string }>("SELECT reference FROM simulator_ledger WHERE kind = 'refund'"))[0]!.reference, sentAt, amountCents: 2500 })).toMatchObject({
        found: true,
        outcome: 'approved',
        transactionId: refund.transactionId,
      });
      expect(await other.lookup({ kind: 'sale', reference: randomUUID(), sentAt, amountCents: 2500 })).toMatchObject({ found: false });
      // A reference looked up as the wrong kind is not found either.
      expect(await other.lookup({ kind: 'refund', reference: approved.reference, sentAt, amountCents: 101888 })).toMatchObject({ found: false });
    } finally {
      await second.store.close();
    }
  });

  it('writes the sales of a moment together, in the background, and keeps the first entry of a reference', async () => {
    const { store } = await serverProcess();
    try {
      let statements = 0;
      const counting: SqlClient = {
        exec: (text) => store.sql.exec(text),
        query: (text, params, options) => {
          if (text.startsWith('INSERT INTO simulator_ledger')) statements++;
          return store.sql.query(text, params, options);
        },
      };
      const ledger = new SqlSimulatorLedger({ sql: counting, clock });
      const simulator = new SimulatorProcessor({ ledger });
      // 40 sales at once: answered without waiting for the ledger, written in one statement.
      const requests = Array.from({ length: 40 }, () => sale('4242424242424242'));
      const results = await Promise.all(requests.map((r) => simulator.sale(r)));
      expect(statements).toBe(0);
      await ledger.drain();
      expect(statements).toBe(1);
      const rows = await store.sql.query<{ reference: string; transaction_id: string }>('SELECT reference, transaction_id FROM simulator_ledger WHERE reference = ANY($1::text[])', [requests.map((r) => r.reference)]);
      expect(new Map(rows.map((r) => [r.reference, r.transaction_id]))).toEqual(new Map(requests.map((r, i) => [r.reference, results[i]!.transactionId])));
      // The same reference again (a processor's duplicate): the first entry stands.
      const again = await simulator.sale(requests[0]!);
      expect(again.transactionId).not.toBe(results[0]!.transactionId);
      expect(await simulator.lookup({ kind: 'sale', reference: requests[0]!.reference, sentAt: clock.now(), amountCents: 2500 })).toMatchObject({ transactionId: results[0]!.transactionId });
    } finally {
      await store.close();
    }
  });

  it('records nothing for a call abandoned at its deadline: the look-up then says "not processed" after its window', async () => {
    const { store } = await serverProcess();
    try {
      const slow = new ProcessorRegistry([new SimulatorProcessor({ latencyMs: 300, ledger: new SqlSimulatorLedger({ sql: store.sql, clock }) })], { timeoutMs: 50 }).get('simulator');
      const request = sale('4242424242424242');
      await expect(slow.sale(request)).rejects.toThrow(ProcessorTimeoutError);
      // Past the latency: the abandoned call has ended without recording.
      await new Promise((r) => setTimeout(r, 400));
      expect(await store.sql.query('SELECT 1 FROM simulator_ledger WHERE reference = $1', [request.reference])).toHaveLength(0);
      const sentAt = clock.now();
      const item = { kind: 'payment' as const, reference: request.reference, sentAt, amountCents: 2500 };
      expect(await resolveHeldOutcome(slow, item, new Date(sentAt.getTime() + 10_000))).toMatchObject({ action: 'wait' });
      expect(await resolveHeldOutcome(slow, item, new Date(sentAt.getTime() + 61_000))).toMatchObject({ action: 'record', outcome: { kind: 'not-processed' } });
    } finally {
      await store.close();
    }
  });
});

describe('the simulator without its record', () => {
  it('reports a write the database refused (its look-ups will say "not found"), and answers anyway', async () => {
    const failing: SqlClient = {
      exec: async () => {},
      query: async () => {
        throw Object.assign(new Error('permission denied for table simulator_ledger'), { code: '42501' });
      },
    };
    const lost: number[] = [];
    const ledger = new SqlSimulatorLedger({ sql: failing, clock, onLost: (count) => lost.push(count) });
    const simulator = new SimulatorProcessor({ ledger });
    expect(await simulator.sale(sale('4242424242424242'))).toMatchObject({ approved: true });
    await ledger.drain();
    expect(lost).toEqual([1]);
  });

  it('writes again what an unavailable database could not take, and answers meanwhile', async () => {
    let down = true;
    const written: unknown[][] = [];
    const flaky: SqlClient = {
      exec: async () => {},
      query: async <T,>(_text: string, params?: unknown[]) => {
        if (down) throw new DatabaseUnavailableError({ mayHaveApplied: false });
        written.push(params ?? []);
        return [] as T[];
      },
    };
    const lost: number[] = [];
    const ledger = new SqlSimulatorLedger({ sql: flaky, clock, onLost: (count) => lost.push(count), delayMs: 1 });
    const simulator = new SimulatorProcessor({ ledger });
    expect(await simulator.sale(sale('4242424242424242'))).toMatchObject({ approved: true });
    await ledger.drain();
    expect(written).toEqual([]);
    down = false;
    for (let i = 0; i < 50 && written.length === 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(written).toHaveLength(1);
    expect(lost).toEqual([]);
  });

  it('cannot look up without a ledger: it says so, and the held item is an operator\'s', async () => {
    const bare = new SimulatorProcessor();
    await expect(bare.lookup({ kind: 'sale', reference: 'x', sentAt: new Date(), amountCents: 1 })).rejects.toThrow(LookupUnsupportedError);
    expect(await resolveHeldOutcome(bare, { kind: 'payment', reference: 'x', sentAt: new Date(0), amountCents: 1 }, new Date())).toEqual({
      action: 'operator',
      detail: 'this simulator keeps no ledger: it cannot look transactions up',
    });
  });
});
