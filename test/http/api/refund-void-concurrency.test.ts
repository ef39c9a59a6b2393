import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProcessorAdapter } from '../../../src/processors/processor.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { adjust, adjustmentsOf, makePayment, paymentRow, settleNow } from './refund-void-fixtures.ts';

/**
 * Simultaneous requests for one payment: exactly one goes through, and the processor is asked
 * once. The simulator answers after a delay, so the second request arrives while the first is
 * between its claim and the processor's answer. (PGlite runs one transaction at a time; the
 * PostgreSQL run is the one that exercises real lock waits.)
 */

let ctx: TestContext;
let adapter: ProcessorAdapter;
const calls = { void: 0, refund: 0 };

beforeAll(async () => {
  ctx = await createTestContext({ config: { simulatorLatencyMs: 25 } });
  adapter = ctx.services.processorAdapters.get('simulator');
  const { void: voidCall, refund: refundCall } = adapter;
  adapter.void = (r) => {
    calls.void++;
    return voidCall.call(adapter, r);
  };
  adapter.refund = (r) => {
    calls.refund++;
    return refundCall.call(adapter, r);
  };
});
afterAll(() => ctx.close());

const ROUNDS = 5;

async function race(paymentGuid: string, kinds: ('void' | 'refund')[]) {
  const before = { ...calls };
  const responses = await Promise.all(kinds.map((kind, i) => adjust(ctx, kind, { PaymentGuid: paymentGuid, Reason: `racer ${i}` })));
  for (const r of responses) expect(r.statusCode).toBe(200);
  const bodies = responses.map((r) => r.json() as { Successful: boolean; Message: string; ProcessStatus: number });
  const processorCalls = calls.void - before.void + (calls.refund - before.refund);
  const records = await adjustmentsOf(ctx, paymentGuid);
  return { bodies, winners: bodies.filter((b) => b.Successful), processorCalls, records };
}

describe('simultaneous requests for one payment: exactly one succeeds', () => {
  it('two voids of an authorized payment', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const paid = await makePayment(ctx);
      const { winners, bodies, processorCalls, records } = await race(paid.PaymentGuid, ['void', 'void']);
      expect(winners).toHaveLength(1);
      expect(processorCalls).toBe(1);
      const loser = bodies.find((b) => !b.Successful)!;
      expect(loser.Message).toMatch(/in progress|already been voided/);
      expect(records.filter((r) => r.status === 'approved')).toHaveLength(1);
      expect(records.filter((r) => r.status === 'refused')).toHaveLength(1);
      expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 6, process_status: 9, pending_adjustment_id: null });
    }
  });

  it('two refunds of a settled payment', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const paid = await makePayment(ctx);
      await settleNow(ctx);
      const { winners, processorCalls, records } = await race(paid.PaymentGuid, ['refund', 'refund']);
      expect(winners).toHaveLength(1);
      expect(processorCalls).toBe(1);
      expect(records.filter((r) => r.status === 'approved')).toHaveLength(1);
      expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 5, process_status: 8, pending_adjustment_id: null });
    }
  });

  it('a refund and a void of an authorized payment (the void wins) and of a settled one (the refund wins)', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const open = await makePayment(ctx);
      const a = await race(open.PaymentGuid, i % 2 ? ['refund', 'void'] : ['void', 'refund']);
      expect(a.winners).toHaveLength(1);
      expect(a.processorCalls).toBe(1);
      expect(await paymentRow(ctx, open.PaymentGuid)).toMatchObject({ process_status: 9 });

      const settled = await makePayment(ctx);
      await settleNow(ctx);
      const b = await race(settled.PaymentGuid, i % 2 ? ['refund', 'void'] : ['void', 'refund']);
      expect(b.winners).toHaveLength(1);
      expect(b.processorCalls).toBe(1);
      expect(await paymentRow(ctx, settled.PaymentGuid)).toMatchObject({ process_status: 8 });
    }
  });

  it('many mixed requests at once', async () => {
    const paid = await makePayment(ctx, { kind: 'ach' });
    await settleNow(ctx);
    const { winners, processorCalls, records } = await race(paid.PaymentGuid, ['refund', 'void', 'refund', 'refund', 'void', 'refund']);
    expect(winners).toHaveLength(1);
    expect(processorCalls).toBe(1);
    expect(records).toHaveLength(6);
    expect(records.filter((r) => r.status === 'approved')).toHaveLength(1);
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 5, process_status: 7 });
  });

  it('a void and a settlement run at once: either the void wins and the payment never settles, or the settlement wins and the void is refused', async () => {
    for (let i = 0; i < ROUNDS; i++) {
      const paid = await makePayment(ctx);
      ctx.clock.advance(1);
      const [res, run] = await Promise.all([adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: 'race' }), ctx.services.settlement.settle()]);
      const row = await paymentRow(ctx, paid.PaymentGuid);
      if (res.json().Successful) {
        expect(row).toMatchObject({ payment_result: 6, process_status: 9, settlement_batch_id: null });
      } else {
        expect(res.json().Message).toMatch(/settled.*refund it/);
        expect(row).toMatchObject({ payment_result: 3, process_status: 4, settlement_batch_id: run.batch.id });
      }
      expect(row.pending_adjustment_id).toBeNull();
    }
  });
});
