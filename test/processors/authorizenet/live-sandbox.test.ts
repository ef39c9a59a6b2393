import { randomInt, randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AuthorizeNetProcessor } from '../../../src/processors/authorizenet/adapter.ts';
import type { SaleRequest } from '../../../src/processors/processor.ts';
import { ProcessorRegistry } from '../../../src/processors/registry.ts';

/**
 * Opt-in: the adapter against Authorize.Net's real sandbox (apitest.authorize.net). Runs only when
 * AUTHORIZENET_SANDBOX_LOGIN and AUTHORIZENET_SANDBOX_KEY hold a sandbox account's API login id and
 * transaction key (a free account: developer.authorize.net/hello_world/sandbox), and is skipped
 * otherwise. It moves no money: sandbox transactions are not sent to a card network.
 */
const login = process.env.AUTHORIZENET_SANDBOX_LOGIN?.trim();
const key = process.env.AUTHORIZENET_SANDBOX_KEY?.trim();
const PROCESSOR = '11111111-2222-4333-8444-555555555555';

describe.skipIf(!login || !key)('the Authorize.Net sandbox (live)', { timeout: 120_000 }, () => {
  const accounts = { credentials: async () => ({ apiLoginId: login!, transactionKey: key!, environment: 'sandbox' as const }) };
  const adapter = new ProcessorRegistry([new AuthorizeNetProcessor({ accounts })], { timeoutMs: 30_000 }).forProcessor({ id: PROCESSOR, adapter: 'authorizenet' });
  // A random amount: the sandbox's own duplicate check compares amounts too.
  const sale = (overrides: Partial<SaleRequest> = {}): SaleRequest => ({
    reference: randomUUID(),
    amountCents: randomInt(100, 99_999),
    currency: 'USD',
    card: { number: '4111111111111111', expMonth: '12', expYear: '35', cvv: '900', paymentMethodTypeId: 3 },
    billing: { name: 'Ada Lovelace', street: '1 Main St', zip: '98004' },
    ...overrides,
  });

  it('takes the credentials', async () => {
    expect(await adapter.checkCredentials!({ processorId: PROCESSOR })).toEqual({ ok: true, message: 'Authorize.Net (sandbox) accepted the credentials' });
  });

  it('approves a card sale, finds it by our reference, and voids it', async () => {
    const request = sale();
    const approved = await adapter.sale(request);
    expect(approved).toMatchObject({ approved: true, responseCode: '0' });
    const sentAt = new Date(Date.now() - 60_000);
    const found = await adapter.lookup({ kind: 'sale', reference: request.reference, sentAt, amountCents: request.amountCents });
    expect(found).toMatchObject({ found: true, outcome: 'approved', transactionId: approved.transactionId, amountCents: request.amountCents });
    const voidReference = randomUUID();
    expect(await adapter.void({ reference: voidReference, originalTransactionId: approved.transactionId, amountCents: request.amountCents, kind: 'card' })).toMatchObject({ approved: true });
    expect(await adapter.lookup({ kind: 'void', reference: voidReference, sentAt, amountCents: request.amountCents, originalTransactionId: approved.transactionId })).toMatchObject({ found: true, voided: true });
  });

  it('declines the testing guide\'s zip 46282, and refuses the refund of an unsettled sale', async () => {
    expect(await adapter.sale(sale({ billing: { name: 'Ada Lovelace', zip: '46282' } }))).toMatchObject({ approved: false, responseCode: '12' });
    const approved = await adapter.sale(sale());
    const refund = await adapter.refund({ reference: randomUUID(), originalTransactionId: approved.transactionId, amountCents: 100, kind: 'card' });
    expect(refund).toMatchObject({ approved: false, processorMessage: expect.stringMatching(/reason 54/) });
  });

  it('reads its settled batches of the last two days', async () => {
    const report = await adapter.settlementReport!({ from: new Date(Date.now() - 2 * 86_400_000), to: new Date() });
    expect(Array.isArray(report.transactions)).toBe(true);
    for (const t of report.transactions) expect(Number.isInteger(t.amountCents)).toBe(true);
  });
});
