import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backgroundJobs } from '../../../src/composition.ts';
import { ManualClock } from '../../../src/platform/clock.ts';
import { ConfigError, loadConfig, testConfig } from '../../../src/config.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { ValidationError } from '../../../src/platform/errors.ts';
import { createServices } from '../../../src/composition.ts';
import { openPostgres } from '../../../src/platform/database/database.ts';
import { adjust, makePayment, paymentRow } from '../../http/api/refund-void-fixtures.ts';
import { type TestContext, cardPaymentInput, createTestContext, seedTestPartner } from '../../helpers/context.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { freshDatabase } from '../../helpers/store.ts';
import { testLogger } from '../../helpers/logger.ts';

let ctx: TestContext;
beforeAll(async () => {
  // Starts on a Saturday at noon UTC; the default cut-off is 02:00 UTC.
  ctx = await createTestContext({ clock: new ManualClock('2026-11-21T12:00:00.000Z') });
});
afterAll(() => ctx.close());

const worker = () => backgroundJobs(ctx.services).find((j) => j.name === 'settlement')!;
const at = (iso: string) => ctx.clock.set(iso);
const batchStates = async (cutoff: string) =>
  (await ctx.store.sql.query<{ state: string }>('SELECT state FROM settlement_batches WHERE cutoff_at = $1', [cutoff])).map((r) => r.state);
const batchCount = async () => Number((await ctx.store.sql.query<{ n: string }>('SELECT count(*) AS n FROM settlement_batches'))[0]!.n);

describe('SETTLEMENT_CUTOFF', () => {
  it('defaults to 02:00 UTC and takes HH:MM', () => {
    expect(loadConfig({}).settlementCutoffMinutes).toBe(120);
    expect(loadConfig({ SETTLEMENT_CUTOFF: '23:30' }).settlementCutoffMinutes).toBe(23 * 60 + 30);
    expect(loadConfig({ SETTLEMENT_CUTOFF: '00:00' }).settlementCutoffMinutes).toBe(0);
  });

  it.each(['24:00', '2:00', '02:60', '0200', 'noon'])('refuses %s', (value) => {
    expect(() => loadConfig({ SETTLEMENT_CUTOFF: value })).toThrow(ConfigError);
    expect(() => loadConfig({ SETTLEMENT_CUTOFF: value })).toThrow(/SETTLEMENT_CUTOFF must be a time of day in UTC as HH:MM/);
  });
});

describe('the settlement worker, on the injected clock', () => {
  it('settles every payment authorized up to the cut-off once the cut-off passes, and nothing later', async () => {
    // The first check closes the batch of the latest cut-off (today 02:00): nothing was authorized before it.
    const first = await worker().run();
    expect(first).toMatchObject({ created: true, batch: { cutoffAt: new Date('2026-11-21T02:00:00.000Z'), trigger: 'cutoff', settledCount: 0 } });
    // Checked again before the next cut-off: nothing to do.
    at('2026-11-21T18:00:00.000Z');
    expect(await worker().run()).toBeUndefined();

    at('2026-11-21T20:00:00.000Z');
    const early = await makePayment(ctx);
    at('2026-11-22T01:59:59.999Z');
    const justBefore = await makePayment(ctx);
    expect(await worker().run()).toBeUndefined();
    expect((await paymentRow(ctx, early.PaymentGuid)).process_status).toBe(2);

    at('2026-11-22T02:00:30.000Z');
    const justAfter = await makePayment(ctx);
    const run = (await worker().run()) as Awaited<ReturnType<typeof ctx.services.settlement.settle>>;
    expect(run.created).toBe(true);
    expect(run.batch).toMatchObject({ cutoffAt: new Date('2026-11-22T02:00:00.000Z'), closedAt: new Date('2026-11-22T02:00:30.000Z'), trigger: 'cutoff', settledCount: 2 });
    expect(run.batch.totals).toEqual({ USD: { settledCount: 2, settledCents: 20000, refundedCount: 0, refundedCents: 0 } });
    for (const p of [early, justBefore]) {
      const row = await paymentRow(ctx, p.PaymentGuid);
      expect(row).toMatchObject({ payment_result: 3, process_status: 4, settlement_batch_id: run.batch.id });
      expect(new Date(row.settled_at!).toISOString()).toBe('2026-11-22T02:00:30.000Z');
    }
    expect(await paymentRow(ctx, justAfter.PaymentGuid)).toMatchObject({ process_status: 2, settlement_batch_id: null, settled_at: null });

    // The same cut-off is not closed twice, however often the worker checks.
    at('2026-11-22T09:00:00.000Z');
    expect(await worker().run()).toBeUndefined();
    expect((await paymentRow(ctx, justAfter.PaymentGuid)).process_status).toBe(2);

    // The next day's cut-off takes the later payment.
    at('2026-11-23T02:00:00.000Z');
    const next = (await worker().run()) as Awaited<ReturnType<typeof ctx.services.settlement.settle>>;
    expect(next.batch.settledCount).toBe(1);
    expect((await paymentRow(ctx, justAfter.PaymentGuid)).settlement_batch_id).toBe(next.batch.id);
  });

  it('catches up after downtime with one batch for the latest cut-off', async () => {
    at('2026-11-23T10:00:00.000Z');
    const paid = await makePayment(ctx);
    const batches = await batchCount();
    // Down for three days: the first check settles everything up to the latest cut-off.
    at('2026-11-26T07:00:00.000Z');
    const run = await worker().run();
    expect(run).toMatchObject({ created: true, batch: { cutoffAt: new Date('2026-11-26T02:00:00.000Z') } });
    expect(await batchCount()).toBe(batches + 1);
    expect((await paymentRow(ctx, paid.PaymentGuid)).process_status).toBe(4);
  });

  it('uses the configured cut-off', async () => {
    const clock = new ManualClock('2026-11-26T23:10:00.000Z');
    const services = createServices({ log: testLogger(), store: ctx.store, clock, ids: cryptoIds, config: testConfig({ settlementCutoffMinutes: 23 * 60 + 15 }) });
    expect(services.settlement.latestCutoff().toISOString()).toBe('2026-11-25T23:15:00.000Z');
    clock.set('2026-11-26T23:15:00.000Z');
    expect(services.settlement.latestCutoff().toISOString()).toBe('2026-11-26T23:15:00.000Z');
  });

  it('tells a server whose cut-off is not the one the latest scheduled batch was closed at (the start warns)', async () => {
    // The batches above were closed at the default 02:00.
    expect(await ctx.services.settlement.otherCutoffInUse()).toBeUndefined();
    const other = createServices({ log: testLogger(), store: ctx.store, clock: ctx.clock, ids: cryptoIds, config: testConfig({ settlementCutoffMinutes: 23 * 60 + 35 }) });
    expect(await other.settlement.otherCutoffInUse()).toBe('02:00');
  });
});

describe('settling on demand', () => {
  it('settles every payment authorized up to --as-of, per currency, and is idempotent per moment', async () => {
    at('2026-11-27T08:00:00.000Z');
    const usd = await makePayment(ctx);
    const cad = await makePayment(ctx, { body: { Currency: 'CAD' } });
    at('2026-11-27T09:00:00.000Z');
    const later = await makePayment(ctx);
    at('2026-11-27T10:00:00.000Z');
    const asOf = new Date('2026-11-27T08:30:00.000Z');
    const run = await ctx.services.settlement.settle({ asOf });
    expect(run).toMatchObject({ created: true, batch: { trigger: 'operator', cutoffAt: asOf, settledCount: 2 } });
    expect(run.batch.totals).toEqual({
      CAD: { settledCount: 1, settledCents: 10000, refundedCount: 0, refundedCents: 0 },
      USD: { settledCount: 1, settledCents: 10000, refundedCount: 0, refundedCents: 0 },
    });
    expect((await paymentRow(ctx, usd.PaymentGuid)).process_status).toBe(4);
    expect((await paymentRow(ctx, cad.PaymentGuid)).process_status).toBe(4);
    expect((await paymentRow(ctx, later.PaymentGuid)).process_status).toBe(2);

    const again = await ctx.services.settlement.settle({ asOf });
    expect(again).toEqual({ created: false, batch: run.batch });

    const now = await ctx.services.settlement.settle();
    expect(now.batch.settledCount).toBe(1);
    expect((await paymentRow(ctx, later.PaymentGuid)).settlement_batch_id).toBe(now.batch.id);
  });

  it('refuses a moment in the future', async () => {
    at('2026-11-27T10:00:00.000Z');
    await expect(ctx.services.settlement.settle({ asOf: new Date('2026-11-27T10:00:00.001Z') })).rejects.toThrow(ValidationError);
  });

  it('leaves a payment whose void is in flight for the next batch', async () => {
    at('2026-11-27T11:00:00.000Z');
    const paid = await makePayment(ctx);
    const adapter = ctx.services.processorAdapters.get('simulator');
    const original = adapter.void;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let entered!: () => void;
    const inProcessor = new Promise<void>((r) => (entered = r));
    adapter.void = async (request) => {
      entered();
      await gate;
      return original.call(adapter, request);
    };
    try {
      const voiding = adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: 'in flight' });
      await inProcessor;
      ctx.clock.advance(1000);
      const run = await ctx.services.settlement.settle();
      expect(run.batch.settledCount).toBe(0);
      expect((await paymentRow(ctx, paid.PaymentGuid)).process_status).toBe(2);
      release();
      expect((await voiding).json()).toMatchObject({ Successful: true, ProcessStatus: 9 });
    } finally {
      adapter.void = original;
    }
    ctx.clock.advance(1000);
    await ctx.services.settlement.settle();
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ process_status: 9, settlement_batch_id: null });
  });
});

describe('the processor closes its batch', () => {
  it('gets each processor its approved sales, and a refusal settles nothing', async () => {
    at('2026-12-02T10:00:00.000Z');
    const a = await makePayment(ctx);
    const b = await makePayment(ctx, { partner: ctx.forProfit });
    const simulator = ctx.services.processorAdapters.get('simulator');
    const settle = simulator.settle.bind(simulator);
    const calls: Parameters<typeof settle>[0][] = [];
    simulator.settle = async (request) => {
      calls.push(request);
      return { accepted: false, reference: '', message: 'batch window closed' };
    };
    try {
      at('2026-12-02T11:00:00.000Z');
      await expect(ctx.services.settlement.settle({ asOf: new Date('2026-12-02T10:30:00.000Z') })).rejects.toThrow(/refused to close the batch: batch window closed/);
      expect((await paymentRow(ctx, a.PaymentGuid)).process_status).toBe(2);
      expect((await paymentRow(ctx, b.PaymentGuid)).process_status).toBe(2);
      expect(calls.length).toBeGreaterThanOrEqual(1);
      const refused = calls.map((c) => [c.processorId, c.batchId] as const);

      calls.length = 0;
      simulator.settle = async (request) => {
        calls.push(request);
        return settle(request);
      };
      const run = await ctx.services.settlement.settle({ asOf: new Date('2026-12-02T10:30:00.000Z') });
      expect(run.created).toBe(true);
      expect(calls).toHaveLength(2);
      const ids = calls.flatMap((c) => c.transactionIds);
      expect(ids).toEqual(expect.arrayContaining([a.TransactionId, b.TransactionId]));
      // The reference is the moment's and the processor's, the same as the refused run's: a
      // processor that captured during the refused run recognises its share. Two processors (two
      // merchant accounts on one adapter) never share one.
      expect(calls.map((c) => c.batchId).sort()).toEqual(calls.map((c) => `settle-2026-12-02T10:30:00.000Z-${c.processorId}`).sort());
      expect(new Set(calls.map((c) => c.processorId)).size).toBe(2);
      for (const [processorId, batchId] of refused) expect(calls.find((c) => c.processorId === processorId)?.batchId).toBe(batchId);
      expect((await paymentRow(ctx, a.PaymentGuid)).process_status).toBe(4);
    } finally {
      simulator.settle = settle;
    }
  });
});

describe('while the processors capture a batch (asked outside any transaction)', () => {
  /** Makes the simulator's settle calls wait until `answer()` is called (a slow or stuck processor). */
  function slowSettle() {
    const simulator = ctx.services.processorAdapters.get('simulator');
    const original = simulator.settle;
    let answer!: () => void;
    const gate = new Promise<void>((r) => (answer = r));
    let entered!: () => void;
    const asked = new Promise<void>((r) => (entered = r));
    simulator.settle = async (request) => {
      entered();
      await gate;
      return original.call(simulator, request);
    };
    return { asked, answer: () => answer(), restore: () => (simulator.settle = original) };
  }

  it('holds no lock: payments are made, a payment outside the batch is voided, one inside it is refused as being settled', async () => {
    at('2026-12-03T08:00:00.000Z');
    const inBatch = await makePayment(ctx);
    at('2026-12-03T09:00:00.000Z');
    const outside = await makePayment(ctx);
    at('2026-12-03T10:00:00.000Z');
    const slow = slowSettle();
    try {
      const run = ctx.services.settlement.settle({ asOf: new Date('2026-12-03T08:30:00.000Z') });
      await slow.asked;
      // On PGlite an open transaction would hold every statement below until the processor answered.
      const made = await makePayment(ctx);
      expect(made.Successful).toBe(true);
      expect((await adjust(ctx, 'void', { PaymentGuid: outside.PaymentGuid, Reason: 'outside the batch' })).json()).toMatchObject({ Successful: true, ProcessStatus: 9 });
      const refused = (await adjust(ctx, 'void', { PaymentGuid: inBatch.PaymentGuid, Reason: 'in the batch' })).json();
      expect(refused).toMatchObject({ Successful: false, ProcessStatus: 2 });
      expect(refused.Message).toMatch(/being settled/);
      expect(await batchStates('2026-12-03T08:30:00.000Z')).toEqual(['closing']);
      slow.answer();
      const { batch } = await run;
      expect(batch.state).toBe('closed');
      expect(await paymentRow(ctx, inBatch.PaymentGuid)).toMatchObject({ process_status: 4, settlement_batch_id: batch.id });
    } finally {
      slow.restore();
    }
  });

  it('a batch whose run stopped between its steps is taken over after 10 minutes; the late run then changes nothing', async () => {
    at('2026-12-04T08:00:00.000Z');
    const paid = await makePayment(ctx);
    at('2026-12-04T09:00:00.000Z');
    const asOf = new Date('2026-12-04T08:30:00.000Z');
    const slow = slowSettle();
    let stalled: Promise<unknown> | undefined;
    try {
      stalled = ctx.services.settlement.settle({ asOf });
      await slow.asked;
    } finally {
      slow.restore();
    }
    // Within the 10 minutes, another run leaves the batch to the run that claimed it.
    at('2026-12-04T09:05:00.000Z');
    expect(await ctx.services.settlement.settle({ asOf })).toMatchObject({ created: false, batch: { state: 'closing' } });
    expect((await paymentRow(ctx, paid.PaymentGuid)).process_status).toBe(2);
    // Past them, the worker closes it (asking the processor again under the same reference).
    at('2026-12-04T09:11:00.000Z');
    await worker().run();
    expect(await batchStates('2026-12-04T08:30:00.000Z')).toEqual(['closed']);
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ process_status: 4 });
    // The first run's processor answers at last: its claim was taken over, so it changes nothing.
    slow.answer();
    expect(await stalled).toMatchObject({ created: false, batch: { state: 'closed' } });
    expect(await batchStates('2026-12-04T08:30:00.000Z')).toEqual(['closed']);
  });

  it('an answer not received (a timeout) keeps the batch closing, its payments claimed: taken over, it is asked again under the same reference', async () => {
    at('2026-12-06T08:00:00.000Z');
    const paid = await makePayment(ctx);
    at('2026-12-06T09:00:00.000Z');
    const asOf = new Date('2026-12-06T08:30:00.000Z');
    const simulator = ctx.services.processorAdapters.get('simulator');
    const original = simulator.settle;
    const references: string[] = [];
    simulator.settle = async (request) => {
      references.push(request.batchId);
      throw new Error('the processor did not answer the settlement within 20 s');
    };
    try {
      await expect(ctx.services.settlement.settle({ asOf })).rejects.toThrow(/was not received .*stays closing and is asked again under the same references after 10 minutes/);
    } finally {
      simulator.settle = original;
    }
    // The processor may have captured: the payment is neither given back nor voidable.
    expect(await batchStates('2026-12-06T08:30:00.000Z')).toEqual(['closing']);
    expect((await paymentRow(ctx, paid.PaymentGuid)).settlement_batch_id).not.toBeNull();
    expect((await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: 'while unknown' })).json().Message).toMatch(/being settled/);
    // A run for another moment does not take it either.
    at('2026-12-06T09:05:00.000Z');
    const other = await ctx.services.settlement.settle();
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ process_status: 2 });
    expect((await paymentRow(ctx, paid.PaymentGuid)).settlement_batch_id).not.toBe(other.batch.id);
    // Taken over by the worker once 10 minutes have passed: the same reference again.
    simulator.settle = async (request) => {
      references.push(request.batchId);
      return original.call(simulator, request);
    };
    try {
      at('2026-12-06T09:11:00.000Z');
      await worker().run();
    } finally {
      simulator.settle = original;
    }
    expect(await batchStates('2026-12-06T08:30:00.000Z')).toEqual(['closed']);
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ process_status: 4 });
    expect(new Set(references).size).toBe(1);
    expect(references).toHaveLength(2);
  });

  it("one processor refusing while another accepts: the accepted share settles, the refused one waits for the next batch", async () => {
    at('2026-12-07T08:00:00.000Z');
    const accepted = await makePayment(ctx);
    const refused = await makePayment(ctx, { partner: ctx.forProfit });
    at('2026-12-07T09:00:00.000Z');
    const simulator = ctx.services.processorAdapters.get('simulator');
    const original = simulator.settle;
    const refusing = ctx.forProfit.processorId;
    simulator.settle = async (request) =>
      request.processorId === refusing ? { accepted: false, reference: '', message: 'window closed' } : original.call(simulator, request);
    try {
      await expect(ctx.services.settlement.settle({ asOf: new Date('2026-12-07T08:30:00.000Z') })).rejects.toThrow(
        /refused to close the batch: window closed: that processor's payments wait for the next batch; the other processors' shares settled in batch #\d+/,
      );
    } finally {
      simulator.settle = original;
    }
    expect(await batchStates('2026-12-07T08:30:00.000Z')).toEqual(['closed']);
    // Settled, never given back: another moment's run cannot send it again under another reference.
    expect(await paymentRow(ctx, accepted.PaymentGuid)).toMatchObject({ process_status: 4 });
    expect(await paymentRow(ctx, refused.PaymentGuid)).toMatchObject({ process_status: 2, settlement_batch_id: null });
    at('2026-12-07T10:00:00.000Z');
    const next = await ctx.services.settlement.settle();
    expect(await paymentRow(ctx, refused.PaymentGuid)).toMatchObject({ process_status: 4, settlement_batch_id: next.batch.id });
  });

  it('a refusal gives the payments back: they can be voided, and the next run settles them', async () => {
    at('2026-12-05T08:00:00.000Z');
    const paid = await makePayment(ctx);
    const kept = await makePayment(ctx);
    at('2026-12-05T09:00:00.000Z');
    const simulator = ctx.services.processorAdapters.get('simulator');
    const original = simulator.settle;
    simulator.settle = async () => ({ accepted: false, reference: '', message: 'window closed' });
    try {
      await expect(ctx.services.settlement.settle({ asOf: new Date('2026-12-05T08:30:00.000Z') })).rejects.toThrow(/window closed/);
    } finally {
      simulator.settle = original;
    }
    expect(await batchStates('2026-12-05T08:30:00.000Z')).toEqual([]);
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ process_status: 2, settlement_batch_id: null });
    expect((await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: 'after the refusal' })).json()).toMatchObject({ Successful: true });
    const run = await ctx.services.settlement.settle({ asOf: new Date('2026-12-05T08:30:00.000Z') });
    expect(await paymentRow(ctx, kept.PaymentGuid)).toMatchObject({ process_status: 4, settlement_batch_id: run.batch.id });
  });
});

describe('concurrent settlement runs', () => {
  it('closes one batch per moment and settles each payment once, whatever runs at the same time', async () => {
    at('2026-11-28T08:00:00.000Z');
    const paid = await Promise.all(Array.from({ length: 12 }, () => makePayment(ctx)));
    at('2026-11-28T09:00:00.000Z');
    const asOf = new Date('2026-11-28T08:30:00.000Z');
    const sameMoment = await Promise.all(Array.from({ length: 4 }, () => ctx.services.settlement.settle({ asOf })));
    const created = sameMoment.filter((r) => r.created);
    expect(created).toHaveLength(1);
    expect(new Set(sameMoment.map((r) => r.batch.id)).size).toBe(1);
    // The others found the batch closed, or being closed by the first run.
    expect(created[0]!.batch).toMatchObject({ state: 'closed', settledCount: 12 });
    for (const p of paid) expect(await paymentRow(ctx, p.PaymentGuid)).toMatchObject({ settlement_batch_id: created[0]!.batch.id, process_status: 4 });
  });

  it('different moments at the same time put each payment in exactly one batch', async () => {
    at('2026-11-29T08:00:00.000Z');
    const paid = await Promise.all(Array.from({ length: 12 }, () => makePayment(ctx)));
    at('2026-11-29T09:00:00.000Z');
    const runs = await Promise.all([0, 1, 2, 3].map((i) => ctx.services.settlement.settle({ asOf: new Date(Date.parse('2026-11-29T08:30:00.000Z') + i) })));
    expect(runs.reduce((n, r) => n + r.batch.settledCount, 0)).toBe(12);
    const batches = new Set(runs.map((r) => r.batch.id));
    for (const p of paid) expect(batches.has((await paymentRow(ctx, p.PaymentGuid)).settlement_batch_id!)).toBe(true);
  });

  it.skipIf(!testDatabaseUrl())('two server processes (two connection pools on one PostgreSQL database) close a cut-off once', async () => {
    const db = await freshDatabase(testDatabaseUrl()!);
    const clock = new ManualClock('2026-11-30T12:00:00.000Z');
    const stores = [openPostgres(db.url, 5), openPostgres(db.url, 5)];
    try {
      const [one, two] = stores.map((store) => createServices({ log: testLogger(), store, clock, ids: cryptoIds, config: testConfig() }));
      const seeded = await createTestPartnerPayments(one!, clock, 20);
      clock.set('2026-12-01T02:00:05.000Z');
      const jobs = [one!, two!].flatMap((s) => [s, s]).map((s) => backgroundJobs(s).find((j) => j.name === 'settlement')!.run());
      const results = (await Promise.all(jobs)) as ({ created: boolean; batch: { id: string; settledCount: number } } | undefined)[];
      const created = results.filter((r) => r?.created);
      expect(created).toHaveLength(1);
      expect(created[0]!.batch.settledCount).toBe(seeded.length);
      const rows = await stores[0]!.sql.query<{ n: string; batches: string }>(
        'SELECT count(*) AS n, count(DISTINCT settlement_batch_id) AS batches FROM payments WHERE process_status = 4',
      );
      expect(Number(rows[0]!.n)).toBe(seeded.length);
      expect(Number(rows[0]!.batches)).toBe(1);
      const batches = await stores[1]!.sql.query<{ n: string }>("SELECT count(*) AS n FROM settlement_batches WHERE cutoff_at = '2026-12-01T02:00:00Z'");
      expect(Number(batches[0]!.n)).toBe(1);
    } finally {
      for (const s of stores) await s.close();
      await db.drop();
    }
  });
});

/** A partner with `count` approved card payments, made through the payment service. */
async function createTestPartnerPayments(services: ReturnType<typeof createServices>, clock: ManualClock, count: number) {
  const partner = await seedTestPartner(services, 'Two-process partner', 'non-profit');
  const auth = { id: partner.ClientId, name: partner.name, kind: partner.kind };
  const out = [];
  for (let i = 0; i < count; i++) {
    clock.advance(1000);
    const record = await services.payments.payCard(auth, cardPaymentInput(1000));
    expect(record.payment.successful).toBe(true);
    out.push(record);
  }
  return out;
}
