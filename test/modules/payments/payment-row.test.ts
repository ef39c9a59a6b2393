import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuthenticatedPartner } from '../../../src/domain/partner.ts';
import { ProcessorNotReachedError } from '../../../src/processors/processor.ts';
import type { AchPaymentInput, CardPaymentInput } from '../../../src/modules/payments/payment-input.ts';
import { cardPaymentInput, createTestContext, type TestContext, withSimulator } from '../../helpers/context.ts';

/**
 * A payment is answered from the row it wrote (pending row, then the processor's answer), not
 * read back: the answer must be the row as stored, column for column, whatever the outcome.
 */
let ctx: TestContext;
let auth: AuthenticatedPartner;
beforeAll(async () => {
  ctx = await createTestContext();
  auth = { id: ctx.nonProfit.ClientId, name: ctx.nonProfit.name, kind: ctx.nonProfit.kind };
});
afterAll(() => ctx.close());

let seq = 0;
const tranId = () => `row-${++seq}`;

const everyField: Partial<CardPaymentInput> = {
  firstName: ' Ada ',
  lastName: 'Lovelace',
  street: '1 Main St',
  city: 'Albany',
  state: 'ny',
  zip: '12345',
  country: 'us',
  currency: 'usd',
  billingDescriptor: 'DEMO*GIFT',
  externalConstituentId: 'C-1',
  externalCustomerId: 'CUST-1',
  externalEventId: 'E-1',
  externalEventGuid: '6F1F1D2C-3B4A-4C0A-9A8E-0B7E7F9E3A55',
  externalEventName: 'Gala',
  epfSessionId: 'S-1',
  mKey: undefined,
  gwShieldAdditional: { ProductItem: 'x', Zeta: 'z', A: 'a' },
  shippingFeeCents: 250,
  surchargeCents: 100,
  taxableBenefitCents: 500,
};

const ach = (overrides: Partial<AchPaymentInput> = {}): AchPaymentInput => ({
  checkRoutingNumber: '011000015',
  checkAccountNumber: '123456789',
  checkAccountTypeId: '1',
  checkTypeId: '1',
  nameOnCheck: 'Ada Lovelace',
  state: 'NY',
  email: 'ada@example.org',
  ipAddress: '203.0.113.9',
  lines: [{ transactionSourceGroupId: 1, amountCents: 4200, payFee: true, tipCents: 0, taxCents: 0 }],
  ...overrides,
});

async function expectAnsweredAsStored(record: Awaited<ReturnType<typeof ctx.services.payments.payCard>>) {
  const stored = await ctx.services.payments.get(auth.id, record.payment.id);
  expect(record.payment).toStrictEqual(stored.payment);
  expect(typeof record.payment.paymentId).toBe('number');
}

describe('a payment answers with its row as stored', () => {
  it.each([
    ['an approved card with every optional field', cardPaymentInput(10_000, { ...everyField, tranId: tranId(), cvNum: '123' })],
    ['a declined card', cardPaymentInput(2_500, { cardNum: '4000000000000002', tranId: tranId() })],
    ['a processing error', cardPaymentInput(2_500, { cardNum: '4000000000000119' })],
    ['an approval with AVS street and zip failing', cardPaymentInput(2_500, { cardNum: '4000000000000010', street: '9 Elm', zip: '54321' })],
    ['an approval that stores a token (read back with the token)', cardPaymentInput(2_500, { tokenize: true, externalCustomerId: 'CUST-T' })],
    ['a wallet payment', cardPaymentInput(2_500, { cardNum: undefined, expMonth: undefined, expYear: undefined, paymentMethodTypeId: '8', externalPaymentData: 'opaque' })],
  ])('%s', async (_, input) => {
    await expectAnsweredAsStored(await ctx.services.payments.payCard(auth, input));
  });

  it('an ACH payment, approved and declined', async () => {
    await expectAnsweredAsStored(await ctx.services.payments.payAch(auth, ach({ ...everyField, tranId: tranId() } as Partial<AchPaymentInput>)));
    const declined = await ctx.services.payments.payAch(auth, ach({ checkAccountNumber: '000222222227' }));
    expect(declined.payment.responseCode).toBe('50');
    await expectAnsweredAsStored(declined);
  });

  it('a payment with a stored token (its token columns are written with the answer)', async () => {
    const first = await ctx.services.payments.payCard(auth, cardPaymentInput(1_000, { tokenize: true }));
    expect(first.payment.tokenId).toBeTruthy();
    await expectAnsweredAsStored(await ctx.services.payments.payCard(auth, { ...cardPaymentInput(1_500), cardNum: undefined, expMonth: undefined, expYear: undefined, tokenRef: first.payment.tokenId! }));
  });

  it('a processor that cannot be reached (no answer: a general error)', async () => {
    const unreachable = async (): Promise<never> => {
      throw new ProcessorNotReachedError('connection refused');
    };
    await withSimulator(ctx.services, { sale: unreachable }, async () => {
      const record = await ctx.services.payments.payCard(auth, cardPaymentInput(2_500, { tranId: tranId() }));
      expect(record.payment).toMatchObject({ responseCode: '99', successful: false, processorMessage: null, paymentResult: 4 });
      await expectAnsweredAsStored(record);
    });
  });

  it('a processor call that failed otherwise (outcome unknown: held as Processing)', async () => {
    const timedOut = async (): Promise<never> => {
      throw new Error('socket hang up');
    };
    await withSimulator(ctx.services, { sale: timedOut }, async () => {
      const record = await ctx.services.payments.payCard(auth, cardPaymentInput(2_500, { tranId: tranId() }));
      expect(record.payment).toMatchObject({ responseCode: '99', successful: false, processorMessage: null, paymentResult: 2, processedAt: null });
      await expectAnsweredAsStored(record);
    });
  });

  it('a duplicate refused before the processor (read back from the database)', async () => {
    const id = tranId();
    const first = await ctx.services.payments.payCard(auth, cardPaymentInput(1_000, { tranId: id }));
    expect(first.payment.successful).toBe(true);
    const second = await ctx.services.payments.payCard(auth, cardPaymentInput(1_000, { tranId: id }));
    expect(second.payment.responseCode).toBe('-100');
    await expectAnsweredAsStored(second);
  });
});
