import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { resolveHeldOutcome } from '../../../src/processors/held-outcome.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { adjust, paymentRow, settleNow } from '../../http/api/refund-void-fixtures.ts';
import { createGatewayUser, login, resultOf, soap11 } from '../../http/gateway/gateway-helpers.ts';
import { CARD, createLink, redirectQuery, submit } from '../../http/paypage/paylink-helpers.ts';
import { FakeAuthorizeNet } from './fake-authorizenet.ts';

/**
 * The whole service with a partner whose processor is the Authorize.Net adapter (pointed at the
 * local fake): the payment API, refunds and voids, the pay page, recurring billing on a token made
 * over SOAP, and a held payment resolved by the look-up.

 */

// Gateway logins verify a scrypt hash (seconds on a busy machine).
vi.setConfig({ testTimeout: 120_000 });

const LOGIN = 'wholeLogin1';
const KEY = 'K1k2K3k4K5k6K7k8';

let fake: FakeAuthorizeNet;
let ctx: TestContext;
let processorId: string;

const card = (overrides: Record<string, unknown> = {}) => ({
  CardNum: '4111111111111111',
  ExpMonth: '12',
  ExpYear: '30',
  CVNum: '900',
  NameOnCard: 'Ada Lovelace',
  Email: 'ada@example.org',
  IpAddress: '203.0.113.9',
  Street: '1 Main St',
  Zip: '98004',
  Transactions: [{ TransactionSourceGroupId: '1', Amount: '100.00' }],
  ...overrides,
});

describe('the service with an Authorize.Net processor', () => {
  beforeAll(async () => {
    fake = await FakeAuthorizeNet.start([{ name: LOGIN, transactionKey: KEY }]);
    ctx = await createTestContext({ config: { authorizeNetSandboxUrl: fake.url } });
    ctx.clock.set(new Date());
    fake.now = () => ctx.clock.now();
    ({ processorId } = await ctx.services.processorAccounts.add(ctx.nonProfit.ClientId, {
      adapter: 'authorizenet',
      name: 'Authorize.Net',
      environment: 'sandbox',
      apiLoginId: LOGIN,
      transactionKey: KEY,
      isDefault: true,
    }));
  });
  afterAll(async () => {
    await ctx?.close();
    await fake?.close();
  });

  it('takes card and ACH payments through Authorize.Net, with its answers in the spec\'s fields', async () => {
    const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'anet-1' }) });
    expect(res.statusCode, res.body).toBe(201);
    const paid = res.json();
    expect(paid).toMatchObject({ Successful: true, ResponseCode: '0', PaymentResult: 3, ProcessStatus: 2, AVSResponse: 'Y', AVSStreetStatus: 'Match', AVSZipStatus: 'Match', CVVResponse: 'M', ProcessorGuid: processorId });
    expect(fake.transactions.get(paid.TransactionId)).toMatchObject({ amount: expect.stringMatching(/^\d+\.\d\d$/), status: 'capturedPendingSettlement' });

    const declined = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'anet-2', Zip: '46282' }) });
    expect(declined.json()).toMatchObject({ Successful: false, ResponseCode: '12', PaymentResult: 4, ProcessStatus: 5 });
    // Two answers without a transaction (errors) are both recorded (no transaction id for either).
    for (const tranId of ['anet-3', 'anet-4']) {
      fake.script({ kind: 'answer', responseCode: '3', reason: '19', text: 'An error occurred during processing.' });
      expect((await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: tranId }) })).json()).toMatchObject({ Successful: false, ResponseCode: '99' });
    }

    const ach = await ctx.as(ctx.nonProfit, {
      method: 'POST',
      url: '/api/paymentAch',
      payload: { CheckRoutingNumber: '121042882', CheckAccountNumber: '123456789012', CheckAccountTypeId: '1', CheckTypeId: '1', NameOnCheck: 'Grace Hopper', State: 'NY', Email: 'g@example.org', IpAddress: '203.0.113.9', TranId: 'anet-ach', Transactions: [{ TransactionSourceGroupId: '1', Amount: '50.00' }] },
    });
    expect(ach.json(), ach.body).toMatchObject({ Successful: true, ResponseCode: '0' });
    expect(fake.violations).toEqual([]);
  });

  it('voids before settlement and refunds after it', async () => {
    const toVoid = (await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'anet-void' }) })).json();
    const voided = await adjust(ctx, 'void', { PaymentGuid: toVoid.PaymentGuid, Reason: 'customer asked' });
    expect(voided.json()).toMatchObject({ Successful: true, PaymentResult: 6, ProcessStatus: 9 });
    expect(fake.transactions.get(toVoid.TransactionId)!.status).toBe('voided');

    const toRefund = (await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'anet-refund' }) })).json();
    fake.settleBatch();
    await settleNow(ctx);
    expect((await paymentRow(ctx, toRefund.PaymentGuid)).process_status).toBe(4);
    const refunded = await adjust(ctx, 'refund', { PaymentGuid: toRefund.PaymentGuid, Reason: 'returned goods' });
    expect(refunded.json()).toMatchObject({ Successful: true, PaymentResult: 5 });
    expect(fake.requestsOf('createTransactionRequest').at(-1)).toMatchObject({ transactionRequest: { transactionType: 'refundTransaction', payment: { creditCard: { cardNumber: '1111', expirationDate: 'XXXX' } }, refTransId: toRefund.TransactionId } });
    expect(fake.violations).toEqual([]);
  });

  it('settles only the sales Authorize.Net reports settled; the others wait for a later batch', async () => {
    const early = (await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'anet-early' }) })).json();
    fake.settleBatch();
    const late = (await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'anet-late' }) })).json();
    const first = await settleNow(ctx);
    expect(await paymentRow(ctx, early.PaymentGuid)).toMatchObject({ process_status: 4, settlement_batch_id: first.batch.id });
    expect(await paymentRow(ctx, late.PaymentGuid)).toMatchObject({ process_status: 2, settlement_batch_id: null });
    // Nothing was asked of it to settle: it batches by itself.
    expect(fake.requestsOf('createTransactionRequest').filter((r) => JSON.stringify(r).includes('priorAuthCapture'))).toEqual([]);

    ctx.clock.advance(60_000);
    fake.settleBatch();
    const second = await settleNow(ctx);
    expect(await paymentRow(ctx, late.PaymentGuid)).toMatchObject({ process_status: 4, settlement_batch_id: second.batch.id });
    expect(second.batch.settledCount).toBe(1);
    expect(fake.violations).toEqual([]);
  });

  it('takes a pay page payment', async () => {
    const { id } = await createLink(ctx);
    redirectQuery(await submit(ctx, id, { ...CARD, CardNum: '4111 1111 1111 1111', CVNum: '900' }));
    const [row] = await ctx.store.sql.query<{ transaction_id: string; processor_id: string; successful: boolean }>('SELECT transaction_id, processor_id, successful FROM payments ORDER BY created_at DESC LIMIT 1');
    expect(row).toMatchObject({ processor_id: processorId, successful: true });
    expect(fake.transactions.get(row!.transaction_id)).toMatchObject({ status: 'capturedPendingSettlement', amount: '25.00' });
  });

  it('charges a recurring profile on a card tokenized over SOAP', async () => {
    const user = await createGatewayUser(ctx, ctx.nonProfit, 'anet-gateway-user');
    const sid = await login(ctx, user);
    const ccInfoKey = resultOf(await soap11(ctx, 'GetToken', { ClientSessionID: sid, CcAccountNum: '4111111111111111', CcExpDate: '1230' })).CcInfoKey!;
    const today = ctx.clock.now().toISOString().slice(0, 10);
    const yesterday = new Date(ctx.clock.now().getTime() - 86_400_000).toISOString().slice(0, 10);
    const profile = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/recurringProfile', payload: { TokenGuid: ccInfoKey, Amount: '25.00', StartDate: yesterday, NextBillDate: today, BillingFrequency: 'Monthly' } });
    expect(profile.statusCode, profile.body).toBe(201);
    const before = fake.requestsOf('createTransactionRequest').length;
    expect(await ctx.services.billing.run({ asOf: today })).toMatchObject({ approved: 1 });
    expect(fake.requestsOf('createTransactionRequest').length).toBe(before + 1);
  });

  it('holds a payment whose answer was lost, and the look-up resolves it', async () => {
    fake.script({ kind: 'lose' });
    const held = (await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/payment', payload: card({ TranId: 'anet-lost' }) })).json();
    expect(held).toMatchObject({ Successful: false, PaymentResult: 2 });
    ctx.clock.advance(16 * 60_000);
    const item = (await ctx.services.pendingPayments.list(15)).payments.find((p) => p.paymentGuid === held.PaymentGuid)!;
    const decision = await resolveHeldOutcome(ctx.services.processorAdapters.forProcessor({ id: processorId, adapter: 'authorizenet' }), { kind: 'payment', reference: item.paymentGuid, sentAt: item.createdAt, amountCents: item.amountCents }, ctx.clock.now());
    expect(decision).toMatchObject({ action: 'record', outcome: { kind: 'approved' } });
    if (decision.action === 'record') await ctx.services.pendingPayments.resolve(item.paymentGuid, decision.outcome);
    expect(await paymentRow(ctx, held.PaymentGuid)).toMatchObject({ payment_result: 3, process_status: 2 });
  });
});
