import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ProcessorNotReachedError } from '../../../src/processors/processor.ts';
import { type TestContext, createTestContext, withSimulator } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { adjust, adjustmentsOf, makePayment, paymentRow, settleNow } from './refund-void-fixtures.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const reason = 'Customer asked to cancel';
const tick = () => ctx.clock.advance(1000);

describe('POST /api/void', () => {
  it('voids an authorized card payment: 6 Cancelled / 9 Cancelled, with its own TransactionId', async () => {
    const paid = await makePayment(ctx);
    tick();
    const res = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: reason });
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({
      Successful: true,
      Message: 'Void approved',
      ProcessorMessage: 'Reversal accepted',
      TransactionId: expect.stringMatching(/^SIM\d{15}$/),
      OriginalTransactionId: paid.TransactionId,
      PaymentGuid: paid.PaymentGuid,
      PaymentId: paid.PaymentId,
      ResponseCode: '0',
      PaymentResult: 6,
      ProcessStatus: 9,
    });
    expect(body.TransactionId).not.toBe(paid.TransactionId);
    await expectDocumented(ctx.app, 'POST', '/api/void', res);

    const row = await paymentRow(ctx, paid.PaymentGuid);
    expect(row).toMatchObject({ payment_result: 6, process_status: 9, pending_adjustment_id: null, transaction_id: paid.TransactionId, successful: true });
    const [record] = await adjustmentsOf(ctx, paid.PaymentGuid);
    expect(record).toMatchObject({
      kind: 'void',
      status: 'approved',
      reason,
      source: 'api',
      request_id: res.headers['x-request-id'],
      transaction_id: body.TransactionId,
      partner_id: ctx.nonProfit.ClientId,
      payment_result_before: 3,
      process_status_before: 2,
      payment_result_after: 6,
      process_status_after: 9,
    });
    expect(record!.completed_at).not.toBeNull();
  });

  it('leaves a voided payment out of every settlement batch', async () => {
    const paid = await makePayment(ctx);
    await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: reason });
    tick();
    await settleNow(ctx);
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 6, process_status: 9, settlement_batch_id: null, settled_at: null });
  });

  it('refuses a settled payment: 200, Successful false, and a message saying to refund it', async () => {
    const paid = await makePayment(ctx);
    tick();
    await settleNow(ctx);
    const res = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: reason });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      Successful: false,
      TransactionId: null,
      ProcessorMessage: null,
      OriginalTransactionId: paid.TransactionId,
      ResponseCode: '-100',
      PaymentResult: 3,
      ProcessStatus: 4,
    });
    expect(res.json().Message).toMatch(/settled.*refund it/i);
    await expectDocumented(ctx.app, 'POST', '/api/void', res);
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 3, process_status: 4, pending_adjustment_id: null });
    const records = await adjustmentsOf(ctx, paid.PaymentGuid);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({ kind: 'void', status: 'refused', reason, payment_result_before: 3, process_status_before: 4, payment_result_after: 3, process_status_after: 4 });
  });

  it('voids an ACH payment before settlement', async () => {
    const paid = await makePayment(ctx, { kind: 'ach' });
    const res = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: reason });
    expect(res.json()).toMatchObject({ Successful: true, PaymentResult: 6, ProcessStatus: 9 });
  });
});

describe('POST /api/refund', () => {
  it('refunds a settled card payment in full at once: 5 Refunded / 8 Refunded', async () => {
    const paid = await makePayment(ctx);
    tick();
    await settleNow(ctx);
    tick();
    const res = await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'Duplicate order' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      Successful: true,
      Message: 'Refund approved',
      ProcessorMessage: 'Credit accepted',
      TransactionId: expect.stringMatching(/^SIM\d{15}$/),
      OriginalTransactionId: paid.TransactionId,
      PaymentGuid: paid.PaymentGuid,
      PaymentId: paid.PaymentId,
      ResponseCode: '0',
      PaymentResult: 5,
      ProcessStatus: 8,
    });
    await expectDocumented(ctx.app, 'POST', '/api/refund', res);
    const row = await paymentRow(ctx, paid.PaymentGuid);
    // The settlement of the payment stays on record.
    expect(row).toMatchObject({ payment_result: 5, process_status: 8 });
    expect(row.settlement_batch_id).not.toBeNull();
    const [record] = await adjustmentsOf(ctx, paid.PaymentGuid);
    expect(record).toMatchObject({ kind: 'refund', status: 'approved', reason: 'Duplicate order', payment_result_before: 3, process_status_before: 4, payment_result_after: 5, process_status_after: 8 });
    expect(record!.completed_at).not.toBeNull();
  });

  it('takes no partial amount: an Amount other than the whole payment is a 400 and changes nothing; the whole amount is taken', async () => {
    const paid = await makePayment(ctx);
    tick();
    await settleNow(ctx);
    tick();
    for (const [kind, amount] of [['refund', '10.00'], ['refund', 500], ['void', '10']] as const) {
      const res = await adjust(ctx, kind, { PaymentGuid: paid.PaymentGuid, Reason: 'partial', amount });
      expect(res.statusCode, `${kind} ${amount}`).toBe(400);
      expect(res.json()).toEqual([
        expect.objectContaining({ ErrorCode: 1006, LoggerMessage: 'Amount: rule 1006', Message: expect.stringContaining(`whole amount, ${paid.TotalAmount.toFixed(2)}`) }),
      ]);
      await expectDocumented(ctx.app, 'POST', `/api/${kind}`, res);
    }
    expect(await adjustmentsOf(ctx, paid.PaymentGuid)).toEqual([]);
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 3, process_status: 4 });
    // The whole amount, as text or as a JSON number: the refund goes through.
    const res = await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'whole', Amount: paid.TotalAmount });
    expect(res.json()).toMatchObject({ Successful: true, PaymentResult: 5, ProcessStatus: 8 });
  });

  it('refuses an unsettled payment: Successful false and a message saying to void it', async () => {
    const paid = await makePayment(ctx);
    const res = await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: reason });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Successful: false, ResponseCode: '-100', TransactionId: null, PaymentResult: 3, ProcessStatus: 2 });
    expect(res.json().Message).toMatch(/not settled.*void it/i);
    await expectDocumented(ctx.app, 'POST', '/api/refund', res);
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 3, process_status: 2 });
  });

  it('refunds an ACH payment as AwaitingRefund (7), which becomes Refunded (8) at the next settlement run', async () => {
    const paid = await makePayment(ctx, { kind: 'ach' });
    tick();
    await settleNow(ctx);
    tick();
    const res = await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: reason });
    expect(res.json()).toMatchObject({ Successful: true, PaymentResult: 5, ProcessStatus: 7, ProcessorMessage: 'Credit entry accepted for the next ACH batch' });
    await expectDocumented(ctx.app, 'POST', '/api/refund', res);
    expect((await adjustmentsOf(ctx, paid.PaymentGuid))[0]).toMatchObject({ status: 'approved', completed_at: null, settlement_batch_id: null });

    // A second refund is refused while it waits.
    const again = await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: reason });
    expect(again.json()).toMatchObject({ Successful: false, PaymentResult: 5, ProcessStatus: 7 });
    expect(again.json().Message).toMatch(/already been refunded/);

    // A batch closed as of a moment before the refund does not complete it.
    const before = await ctx.services.settlement.settle({ asOf: new Date(ctx.clock.now().getTime() - 500) });
    expect(before.batch.achRefundsCompleted).toBe(0);
    expect((await paymentRow(ctx, paid.PaymentGuid)).process_status).toBe(7);

    tick();
    const run = await settleNow(ctx);
    expect(run.batch.achRefundsCompleted).toBe(1);
    expect(run.batch.totals.USD).toMatchObject({ refundedCount: 1, refundedCents: Number((await paymentRow(ctx, paid.PaymentGuid)).total_amount_cents) });
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 5, process_status: 8 });
    const records = await adjustmentsOf(ctx, paid.PaymentGuid);
    const approved = records.find((r) => r.status === 'approved')!;
    expect(approved.settlement_batch_id).toBe(run.batch.id);
    expect(approved.completed_at).not.toBeNull();

    // Completed once: the next run has nothing more to do.
    tick();
    expect((await settleNow(ctx)).batch.achRefundsCompleted).toBe(0);
  });
});

describe('refused transitions: 200, Successful false, a clear message, nothing changes', () => {
  it('a declined payment can be neither voided nor refunded', async () => {
    const paid = await makePayment(ctx, { body: { CardNum: '4000000000000002' } });
    expect(paid.Successful).toBe(false);
    for (const kind of ['void', 'refund'] as const) {
      const res = await adjust(ctx, kind, { PaymentGuid: paid.PaymentGuid, Reason: reason });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ Successful: false, PaymentResult: 4, ProcessStatus: 5, ResponseCode: '-100' });
      expect(res.json().Message).toMatch(/not approved/);
    }
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ payment_result: 4, process_status: 5 });
  });

  it('a voided payment can be neither voided again nor refunded', async () => {
    const paid = await makePayment(ctx);
    await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: reason });
    tick();
    await settleNow(ctx);
    for (const kind of ['void', 'refund'] as const) {
      const res = await adjust(ctx, kind, { PaymentGuid: paid.PaymentGuid, Reason: reason });
      expect(res.json()).toMatchObject({ Successful: false, PaymentResult: 6, ProcessStatus: 9 });
      expect(res.json().Message).toMatch(/already been voided/);
    }
  });

  it('a refunded payment can be neither refunded again nor voided', async () => {
    const paid = await makePayment(ctx);
    tick();
    await settleNow(ctx);
    await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: reason });
    for (const kind of ['refund', 'void'] as const) {
      const res = await adjust(ctx, kind, { PaymentGuid: paid.PaymentGuid, Reason: reason });
      expect(res.json()).toMatchObject({ Successful: false, PaymentResult: 5, ProcessStatus: 8 });
      expect(res.json().Message).toMatch(/already been refunded/);
    }
    const records = await adjustmentsOf(ctx, paid.PaymentGuid);
    expect(records.map((r) => r.status).sort()).toEqual(['approved', 'refused', 'refused']);
  });

  it('a duplicate (not processed) payment can be neither voided nor refunded', async () => {
    const tranId = `dup-${Date.now()}`;
    await makePayment(ctx, { body: { TranId: tranId } });
    const dup = await makePayment(ctx, { body: { TranId: tranId } });
    expect(dup).toMatchObject({ Successful: false, PaymentResult: 4, ProcessStatus: 1 });
    const res = await adjust(ctx, 'void', { PaymentGuid: dup.PaymentGuid, Reason: reason });
    expect(res.json()).toMatchObject({ Successful: false, PaymentResult: 4, ProcessStatus: 1 });
  });
});

describe('processor answers', () => {
  it('records a processor decline, changes nothing, and lets a later request go through', async () => {
    const paid = await makePayment(ctx);
    const declined = async () => ({ approved: false, responseCode: '12', message: 'Void declined', processorMessage: 'Original not found', transactionId: 'SIM000000000000001' });
    await withSimulator(ctx.services, { void: declined }, async () => {
      const res = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: reason });
      expect(res.json()).toMatchObject({ Successful: false, ResponseCode: '12', Message: 'Void declined', ProcessorMessage: 'Original not found', PaymentResult: 3, ProcessStatus: 2 });
    });
    tick();
    expect((await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: reason })).json()).toMatchObject({ Successful: true, ProcessStatus: 9 });
    const records = await adjustmentsOf(ctx, paid.PaymentGuid);
    expect(records.map((r) => r.status)).toEqual(['declined', 'approved']);
  });

  it('answers a processor that cannot be reached with a general error (99) and releases the payment', async () => {
    const paid = await makePayment(ctx);
    tick();
    await settleNow(ctx);
    const unreachable = async (): Promise<never> => {
      throw new ProcessorNotReachedError('connection refused');
    };
    await withSimulator(ctx.services, { refund: unreachable }, async () => {
      const res = await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: reason });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ Successful: false, ResponseCode: '99', TransactionId: null, PaymentResult: 3, ProcessStatus: 4 });
      expect(res.json().Message).toMatch(/could not be reached/);
    });
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ pending_adjustment_id: null, process_status: 4 });
    tick();
    expect((await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: reason })).json()).toMatchObject({ Successful: true, ProcessStatus: 8 });
    expect((await adjustmentsOf(ctx, paid.PaymentGuid)).map((r) => r.status)).toEqual(['failed', 'approved']);
  });

  it('holds a refund whose processor call failed otherwise (a timeout: it may have refunded) for an operator: no second refund', async () => {
    const paid = await makePayment(ctx);
    tick();
    await settleNow(ctx);
    const timedOut = async (): Promise<never> => {
      throw new Error('read timeout');
    };
    await withSimulator(ctx.services, { refund: timedOut }, async () => {
      const res = await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: reason });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ Successful: false, ResponseCode: '99', TransactionId: null, PaymentResult: 3, ProcessStatus: 4 });
      expect(res.json().Message).toMatch(/not known\. Do not send it again/);
    });
    const row = await paymentRow(ctx, paid.PaymentGuid);
    expect(row.pending_adjustment_id).not.toBeNull();
    // Sent again, it is refused while the first is held; an operator records the processor's answer.
    tick();
    expect((await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: reason })).json()).toMatchObject({ Successful: false, ProcessStatus: 4 });
    expect((await adjustmentsOf(ctx, paid.PaymentGuid)).map((r) => r.status)).toEqual(['pending', 'refused']);
    await ctx.services.pendingPayments.resolve(row.pending_adjustment_id as string, { kind: 'approved', transactionId: 'BANK-REF-1' }, { force: true });
    expect(await paymentRow(ctx, paid.PaymentGuid)).toMatchObject({ pending_adjustment_id: null, process_status: 8 });
  });
});

describe('finding the payment', () => {
  it('finds it by PaymentExternalId (the payment’s TransactionId)', async () => {
    const paid = await makePayment(ctx);
    const res = await adjust(ctx, 'void', { PaymentExternalId: paid.TransactionId, Reason: reason });
    expect(res.json()).toMatchObject({ Successful: true, PaymentGuid: paid.PaymentGuid, OriginalTransactionId: paid.TransactionId });
  });

  it('accepts both when they name the same payment, and answers 404 when they do not', async () => {
    const a = await makePayment(ctx);
    const b = await makePayment(ctx);
    const mismatch = await adjust(ctx, 'void', { PaymentGuid: a.PaymentGuid, PaymentExternalId: b.TransactionId, Reason: reason });
    expect(mismatch.statusCode).toBe(404);
    expect(mismatch.json().detail).toBe('No payment has both this PaymentGuid and this PaymentExternalId.');
    const match = await adjust(ctx, 'void', { PaymentGuid: a.PaymentGuid.toUpperCase(), PaymentExternalId: a.TransactionId, Reason: reason });
    expect(match.json()).toMatchObject({ Successful: true, PaymentGuid: a.PaymentGuid });
  });

  it('answers 404 for an unknown payment, and exactly the same for another partner’s payment', async () => {
    const theirs = await makePayment(ctx, { partner: ctx.nonProfit });
    const asMerchant = { ProcessorGuid: ctx.forProfit.processorId, Reason: reason };
    const unknown = await adjust(ctx, 'void', { ...asMerchant, PaymentGuid: '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a' }, ctx.forProfit);
    const other = await adjust(ctx, 'void', { ...asMerchant, PaymentGuid: theirs.PaymentGuid }, ctx.forProfit);
    const otherByExternalId = await adjust(ctx, 'refund', { ...asMerchant, PaymentExternalId: theirs.TransactionId }, ctx.forProfit);
    const unknownByExternalId = await adjust(ctx, 'refund', { ...asMerchant, PaymentExternalId: 'SIM000000000000001' }, ctx.forProfit);
    const byExternalId = "No such payment: PaymentExternalId is the payment's TransactionId, from the payment response.";
    for (const [res, detail] of [[unknown, 'No such payment.'], [other, 'No such payment.'], [otherByExternalId, byExternalId], [unknownByExternalId, byExternalId]] as const) {
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      const { traceId: _traceId, ...rest } = res.json();
      expect(rest).toEqual({ type: 'https://tools.ietf.org/html/rfc9110#section-15.5.5', title: 'Not Found', status: 404, detail });
    }
    await expectDocumented(ctx.app, 'POST', '/api/void', other);
    await expectDocumented(ctx.app, 'POST', '/api/refund', otherByExternalId);
    // Nothing was recorded against the other partner's payment, and it is untouched.
    expect(await adjustmentsOf(ctx, theirs.PaymentGuid)).toHaveLength(0);
    expect(await paymentRow(ctx, theirs.PaymentGuid)).toMatchObject({ payment_result: 3, process_status: 2 });
  });

  it('requires ProcessorGuid from a for-profit partner, which must be its own and the payment’s processor', async () => {
    const paid = await makePayment(ctx, { partner: ctx.forProfit });
    const without = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: reason }, ctx.forProfit);
    expect(without.statusCode).toBe(400);
    expect(without.json()).toEqual([{ ErrorCode: 3003, Message: "'ProcessorGuid' is required for a for-profit partner.", LoggerMessage: 'ProcessorGuid: rule 3003' }]);
    await expectDocumented(ctx.app, 'POST', '/api/void', without);

    const notTheirs = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, ProcessorGuid: ctx.nonProfit.processorId, Reason: reason }, ctx.forProfit);
    expect(notTheirs.statusCode).toBe(400);
    expect(notTheirs.json()[0]).toMatchObject({ ErrorCode: 3004, LoggerMessage: 'ProcessorGuid: rule 3004' });

    const second = await ctx.services.partners.createProcessor(ctx.forProfit.ClientId, { name: 'Second account' });
    const otherProcessor = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, ProcessorGuid: second, Reason: reason }, ctx.forProfit);
    expect(otherProcessor.statusCode).toBe(400);
    expect(otherProcessor.json()[0]).toMatchObject({ ErrorCode: 4001, LoggerMessage: 'ProcessorGuid: rule 4001' });

    const ok = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, ProcessorGuid: ctx.forProfit.processorId, Reason: reason }, ctx.forProfit);
    expect(ok.json()).toMatchObject({ Successful: true, ProcessStatus: 9 });
  });

  it('takes ProcessorGuid from a non-profit partner when it is the payment’s processor', async () => {
    const paid = await makePayment(ctx);
    const res = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, ProcessorGuid: ctx.nonProfit.processorId.toUpperCase(), Reason: reason });
    expect(res.json()).toMatchObject({ Successful: true });
  });
});

describe('validation: 400 with one BrokenRule per broken field, nothing recorded', () => {
  const guid = '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a';
  it.each([
    ['neither PaymentGuid nor PaymentExternalId', { Reason: reason }, 'PaymentGuid', 4000],
    ['blank PaymentGuid and PaymentExternalId', { PaymentGuid: '', PaymentExternalId: '  ', Reason: reason }, 'PaymentGuid', 4000],
    ['a malformed PaymentGuid', { PaymentGuid: 'not-a-guid', Reason: reason }, 'PaymentGuid', 1003],
    ['a PaymentExternalId with spaces', { PaymentExternalId: 'SIM 123', Reason: reason }, 'PaymentExternalId', 1003],
    ['a PaymentExternalId over 200 characters', { PaymentExternalId: 'X'.repeat(201), Reason: reason }, 'PaymentExternalId', 1002],
    ['no Reason', { PaymentGuid: guid }, 'Reason', 1001],
    ['an empty Reason', { PaymentGuid: guid, Reason: '' }, 'Reason', 1001],
    ['a blank Reason', { PaymentGuid: guid, Reason: '   ' }, 'Reason', 1001],
    ['a Reason over 500 characters', { PaymentGuid: guid, Reason: 'r'.repeat(501) }, 'Reason', 1002],
    ['a Reason of the wrong type', { PaymentGuid: guid, Reason: { text: 'x' } }, 'Reason', 1004],
    ['a malformed ProcessorGuid', { PaymentGuid: guid, Reason: reason, ProcessorGuid: 'x' }, 'ProcessorGuid', 1003],
    ['an Amount that is no amount', { PaymentGuid: guid, Reason: reason, Amount: '-10' }, 'Amount', 1003],
  ])('%s', async (_name, body, field, code) => {
    for (const kind of ['void', 'refund'] as const) {
      const res = await adjust(ctx, kind, body);
      expect(res.statusCode).toBe(400);
      const rules = res.json() as { ErrorCode: number; LoggerMessage: string }[];
      expect(rules).toContainEqual(expect.objectContaining({ ErrorCode: code, LoggerMessage: `${field}: rule ${code}` }));
      await expectDocumented(ctx.app, 'POST', `/api/${kind}`, res);
    }
  });

  it('accepts a Reason of exactly 500 characters', async () => {
    const paid = await makePayment(ctx);
    const res = await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: 'r'.repeat(500) });
    expect(res.json()).toMatchObject({ Successful: true });
  });

  it('reports every broken field at once', async () => {
    const res = await adjust(ctx, 'refund', { PaymentGuid: 'nope', ProcessorGuid: 'nope' }, ctx.nonProfit);
    expect(res.json().map((r: { LoggerMessage: string }) => r.LoggerMessage).sort()).toEqual(['PaymentGuid: rule 1003', 'ProcessorGuid: rule 1003', 'Reason: rule 1001']);
  });

  it('binds property names case-insensitively', async () => {
    const paid = await makePayment(ctx);
    const res = await adjust(ctx, 'void', { paymentguid: paid.PaymentGuid, REASON: reason });
    expect(res.json()).toMatchObject({ Successful: true });
  });

  it('needs an AccessToken', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/refund', payload: { PaymentGuid: guid, Reason: reason } });
    expect(res.statusCode).toBe(401);
    await expectDocumented(ctx.app, 'POST', '/api/refund', res);
  });
});

describe('history', () => {
  it('keeps every request as a record of its own and never overwrites the original payment', async () => {
    const paid = await makePayment(ctx, { body: { Transactions: [{ TransactionSourceGroupId: '1', Amount: '100.00', Tip: '5.00' }] } });
    const original = await paymentRow(ctx, paid.PaymentGuid);
    tick();
    await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'first: too early' });
    tick();
    await settleNow(ctx);
    tick();
    await adjust(ctx, 'void', { PaymentGuid: paid.PaymentGuid, Reason: 'second: too late' });
    tick();
    await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'third: goes through' });
    tick();
    await adjust(ctx, 'refund', { PaymentGuid: paid.PaymentGuid, Reason: 'fourth: already done' });

    const history = await ctx.services.refundsVoids.history(ctx.nonProfit.ClientId, paid.PaymentGuid);
    expect(history.map((h) => [h.kind, h.status, h.reason, h.processStatusBefore, h.processStatusAfter])).toEqual([
      ['refund', 'refused', 'first: too early', 2, 2],
      ['void', 'refused', 'second: too late', 4, 4],
      ['refund', 'approved', 'third: goes through', 4, 8],
      ['refund', 'refused', 'fourth: already done', 8, 8],
    ]);
    expect(new Set(history.map((h) => h.requestedAt.getTime())).size).toBe(4);
    // Another partner sees none of it.
    expect(await ctx.services.refundsVoids.history(ctx.forProfit.ClientId, paid.PaymentGuid)).toEqual([]);

    const after = await paymentRow(ctx, paid.PaymentGuid);
    for (const column of ['transaction_id', 'auth_code', 'total_amount_cents', 'successful'] as const) expect(after[column]).toEqual(original[column]);

    // The fee treatment of the refund (docs/fees.md): the payer gets everything back, processing
    // fees are retained, commissions and the tip are reversed.
    const refund = history[2]!;
    const line = paid.TransactionFees as { CardFeeAmount: number; PerTransFee: number; CardTypeFeeAmount: number; CardFeeOnFeeAmount: number; AchFeeAmount: number; PartnerCommissionAmount: number; PlatformCommissionAmount: number }[];
    const cents = (n: number) => Math.round(n * 100);
    const processing = line.reduce((s, l) => s + cents(l.CardFeeAmount) + cents(l.PerTransFee) + cents(l.CardTypeFeeAmount) + cents(l.CardFeeOnFeeAmount) + cents(l.AchFeeAmount), 0);
    const partner = line.reduce((s, l) => s + cents(l.PartnerCommissionAmount), 0);
    const platform = line.reduce((s, l) => s + cents(l.PlatformCommissionAmount), 0);
    const total = cents(paid.TotalAmount as number);
    expect(processing).toBeGreaterThan(0);
    expect(refund.feeTreatment).toEqual({
      amountCents: total,
      payerCreditCents: total,
      authorizationReleasedCents: 0,
      processingFeesCents: processing,
      processingFeesRetainedCents: processing,
      processingFeesReversedCents: 0,
      partnerCommissionReversedCents: partner,
      platformCommissionReversedCents: platform,
      tipReversedCents: 500,
      organizationDebitCents: total - partner - platform - 500,
    });
  });
});
