import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FeeSchedule } from '../../../src/domain/fee-schedule.ts';
import { DEMO_SCHEDULE } from '../../helpers/demo-schedule.ts';
import type { FeeLineInput } from '../../../src/domain/fees.ts';
import type { AuthenticatedPartner } from '../../../src/domain/partner.ts';
import { SCHEDULE_CACHE_MS } from '../../../src/modules/fees/fee-service.ts';
import { NotFoundError, ValidationError } from '../../../src/platform/errors.ts';
import { type TestContext, createTestContext, seedTestPartner } from '../../helpers/context.ts';
import { asApiWire } from '../../helpers/wire-violations.ts';

let ctx: TestContext;
let partner: AuthenticatedPartner;

const schedule = (cardFeeRate: string): FeeSchedule => ({ ...DEMO_SCHEDULE, cardFeeRate });
const line: FeeLineInput = { transactionSourceGroupId: 1, amountCents: 10_000, payFee: false, tipCents: 0, taxCents: 0 };

beforeAll(async () => {
  ctx = await createTestContext();
  const seeded = await seedTestPartner(ctx.services, 'Fee Service Partner', 'non-profit');
  partner = { id: seeded.ClientId, name: 'Fee Service Partner', kind: 'non-profit' };
});
afterAll(() => ctx.close());

describe('FeeService.quote', () => {
  it('reuses a contract for a while, then reads it again', async () => {
    const { fees, partners } = ctx.services;
    await partners.setSchedule(partner.id, schedule('2.9'));
    expect((await fees.quote(partner, { lines: [line] })).lines[0]!.cardFeeAmountCents).toBe(290);
    await partners.setSchedule(partner.id, schedule('3.5'));
    // Within the cache time the old contract still answers...
    expect((await fees.quote(partner, { lines: [line] })).lines[0]!.cardFeeAmountCents).toBe(290);
    ctx.clock.advance(SCHEDULE_CACHE_MS + 1);
    // ...after it, the new one.
    expect((await fees.quote(partner, { lines: [line] })).lines[0]!.cardFeeAmountCents).toBe(350);
    await partners.setSchedule(partner.id, schedule('4'));
    fees.forgetSchedules(partner.id);
    expect((await fees.quote(partner, { lines: [line] })).lines[0]!.cardFeeAmountCents).toBe(400);
  });

  it('reads a contract again when the clock is stepped back, rather than reusing it for the step as well', async () => {
    const { fees, partners } = ctx.services;
    await partners.setSchedule(partner.id, schedule('2.9'));
    fees.forgetSchedules();
    expect((await fees.quote(partner, { lines: [line] })).lines[0]!.cardFeeAmountCents).toBe(290);
    await partners.setSchedule(partner.id, schedule('3.5'));
    ctx.clock.advance(-3_600_000);
    try {
      expect((await fees.quote(partner, { lines: [line] })).lines[0]!.cardFeeAmountCents).toBe(350);
    } finally {
      ctx.clock.advance(3_600_000);
    }
  });

  it("quotes inside a caller's transaction from the contract as that transaction sees it", async () => {
    const { fees, partners } = ctx.services;
    await partners.setSchedule(partner.id, schedule('2.9'));
    fees.forgetSchedules();
    await fees.quote(partner, { lines: [line] }); // cached: 2.9
    await partners.setSchedule(partner.id, schedule('3'));
    const inTx = await ctx.store.db.transaction(async (tx) => fees.quote(partner, { lines: [line] }, tx));
    expect(inTx.lines[0]!.cardFeeAmountCents).toBe(300);
    expect(inTx.paymentMethodTypeId).toBeUndefined();
  });

  it('throws typed errors: NotFoundError for a missing schedule, ValidationError with field paths for the rest', async () => {
    const { fees } = ctx.services;
    await expect(fees.quote(partner, { lines: [{ ...line, transactionSourceGroupId: 11 }] })).rejects.toBeInstanceOf(NotFoundError);
    const err = await fees.quote(partner, { lines: [line, { ...line, transactionSourceGroupId: 12 }], lineField: (i, f) => `Lines[${i}].${f}` }).catch((e) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect(asApiWire((err as ValidationError).violations)).toEqual([expect.objectContaining({ code: 2000, field: 'Lines[1].TransactionSourceGroupId' })]);
  });
});
