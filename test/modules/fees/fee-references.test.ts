import { describe, expect, it } from 'vitest';
import type { FeeLineInput } from '../../../src/domain/fees.ts';
import type { AuthenticatedPartner } from '../../../src/domain/partner.ts';
import { FeeService } from '../../../src/modules/fees/fee-service.ts';
import type { ReferenceQuery, ResolvedReferences } from '../../../src/modules/partners/reference-service.ts';
import type { StoredToken } from '../../../src/modules/vault/token-service.ts';
import { ManualClock } from '../../../src/platform/clock.ts';
import { NotFoundError } from '../../../src/platform/errors.ts';
import { DEMO_SCHEDULE } from '../../helpers/demo-schedule.ts';

/** Which references a quote checks, and how often it asks: against fakes, no database. */

const partner: AuthenticatedPartner = { id: 'p1', name: 'Partner', kind: 'non-profit' };
const line: FeeLineInput = { transactionSourceGroupId: 1, amountCents: 10_000, payFee: false, tipCents: 0, taxCents: 0 };
const NONE: ResolvedReferences = {
  processor: null,
  integrationSource: null,
  organizationId: null,
  charityId: null,
  named: { processor: false, integrationSource: false, organization: false, charity: false },
};

function setUp(found: Partial<ResolvedReferences>, token?: Pick<StoredToken, 'kind' | 'paymentMethodTypeId'>) {
  const asked: ReferenceQuery[] = [];
  const tokensAsked: string[] = [];
  const fees = new FeeService({
    clock: new ManualClock(),
    partners: { getContract: async () => [DEMO_SCHEDULE] },
    references: {
      resolve: async (_partnerId: string, query: ReferenceQuery) => {
        asked.push(query);
        return { ...NONE, ...found };
      },
    },
    tokens: {
      find: async (_partnerId: string, ref: string | number) => {
        tokensAsked.push(String(ref));
        return token as StoredToken | undefined;
      },
    },
  });
  return { fees, asked, tokensAsked };
}

describe("FeeService's references", () => {
  it('asks nothing when the quote names none', async () => {
    const { fees, asked, tokensAsked } = setUp({});
    await fees.quote(partner, { lines: [line] });
    expect(asked).toEqual([]);
    expect(tokensAsked).toEqual([]);
  });

  it('asks once for every named one', async () => {
    const { fees, asked } = setUp({ processor: { id: 'x', adapter: 'simulator', paymentMethodTypes: [3] }, charityId: 'c', organizationId: 'o', integrationSource: { id: 's', duplicateCheck: true } });
    await fees.quote(partner, { lines: [line], processorId: 'x', charityId: 'c', organizationId: 'o', integrationSourceId: 's' });
    expect(asked).toEqual([{ processorId: 'x', charityId: 'c', organizationId: 'o', integrationSourceId: 's' }]);
  });

  it("refuses the first named one that is not the partner's, in the order processor, charity, organization, integration source", async () => {
    const { fees } = setUp({ charityId: 'c' });
    const err = await fees.quote(partner, { lines: [line], charityId: 'c', organizationId: 'o', integrationSourceId: 's' }).catch((e) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect(err.message).toBe("Fees not found: the OrganizationGuid is not one of the partner's organizations.");
  });

  it("takes a bank token's payment method as ACH, a card's as its brand", async () => {
    const bank = setUp({}, { kind: 'bank', paymentMethodTypeId: 7 });
    expect((await bank.fees.quote(partner, { lines: [line], tokenRef: '1001' })).paymentMethodTypeId).toBe(7);
    const card = setUp({}, { kind: 'card', paymentMethodTypeId: 3 });
    expect((await card.fees.quote(partner, { lines: [line], tokenRef: '1001' })).paymentMethodTypeId).toBe(3);
    expect(card.tokensAsked).toEqual(['1001']);
  });
});
