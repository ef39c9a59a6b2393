import { describe, expect, it } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { ValidationError } from '../../../src/platform/errors.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import type { ReferenceQuery, ResolvedReferences } from '../../../src/modules/partners/reference-service.ts';
import type { RecurringProfileRepository } from '../../../src/modules/recurring/profile-repository.ts';
import { type RecurringProfile, RecurringProfileService } from '../../../src/modules/recurring/profile-service.ts';
import type { NewRecurringProfile, RecurringProfileChanges } from '../../../src/modules/recurring/profile.ts';
import type { StoredToken } from '../../../src/modules/vault/token-service.ts';
import { asApiWire } from '../../helpers/wire-violations.ts';

/**
 * The profile service's rules on fake collaborators (no database): the violations it says in its
 * own words (camelCase fields, `{field}` placeholders) and surface A says as before, the state
 * rules of an update, the partner's references and the payer it stores.
 */

const partner = { id: 'partner-1', name: 'Partner', kind: 'non-profit' as const };
const SOURCE = '00000000-0000-4000-8000-00000000000a';
const OTHER = '00000000-0000-4000-8000-00000000000f';

const token = {
  id: '00000000-0000-4000-8000-0000000000aa',
  kind: 'card',
  paymentMethodTypeId: 3,
  cardType: 'Visa',
  expMonth: '12',
  expYear: '30',
  bankCountry: null,
  firstName: 'Ada',
  lastName: 'Lovelace',
  street: '1 Analytical Way',
  zip: '12345',
  externalConstituentId: 'C-7',
} as unknown as StoredToken;

class FakeProfiles implements Pick<RecurringProfileRepository, keyof RecurringProfileRepository> {
  readonly rows = new Map<string, RecurringProfile>();
  readonly written: RecurringProfileChanges[] = [];
  async transaction<T>(fn: (tx: never) => Promise<T>): Promise<T> {
    return fn({} as never);
  }
  async find(partnerId: string, id: string) {
    const p = this.rows.get(id);
    return p && p.partnerId === partnerId ? p : undefined;
  }
  async insert(p: NewRecurringProfile) {
    const profile: RecurringProfile = { ...p, profileId: this.rows.size + 1, lastAttemptAt: null, lastFailure: null, suspendedAt: null, completedAt: null, cancelledAt: null };
    this.rows.set(p.id, profile);
    return profile;
  }
  async update(id: string, changes: RecurringProfileChanges) {
    this.written.push(changes);
    const defined = Object.fromEntries(Object.entries(changes).filter(([, v]) => v !== undefined));
    const p = { ...this.rows.get(id)!, ...defined };
    this.rows.set(id, p);
    return p;
  }
}

function setup() {
  const repository = new FakeProfiles();
  const lookups: ReferenceQuery[] = [];
  const references = {
    resolve: async (_partnerId: string, query: ReferenceQuery): Promise<ResolvedReferences> => {
      lookups.push(query);
      return {
        processor: null,
        integrationSource: query.integrationSourceId === SOURCE ? { id: SOURCE, duplicateCheck: false } : null,
        organizationId: null,
        charityId: null,
        named: { processor: false, integrationSource: true, organization: true, charity: true },
      };
    },
  };
  const service = new RecurringProfileService({
    repository,
    clock: new ManualClock('2026-11-21T12:00:00Z'),
    ids: cryptoIds,
    tokens: { find: async (_p: string, ref: string | number) => (ref === token.id ? token : undefined) },
    processors: { resolve: async () => ({ id: '00000000-0000-4000-8000-0000000000bb', paymentMethodTypes: [1, 2, 3, 4, 7] }) as never },
    references,
    fees: { quote: async () => ({ lines: [{ totalCommissionRate: '5', cardFeeRate: '2.9' }] }) as never },
  });
  return { service, repository, lookups };
}

const terms = { tokenRef: token.id, amountCents: 2500, startDate: '2026-11-21', frequency: 'Monthly' as const };
const refused = (promise: Promise<unknown>) => promise.then(() => expect.unreachable('accepted'), (err: unknown) => (expect(err).toBeInstanceOf(ValidationError), (err as ValidationError).violations));

describe('creating a profile', () => {
  it("stores the payer: the fields sent, trimmed, else the token's name, street, zip and constituent id", async () => {
    const { service } = setup();
    const created = await service.create(partner, { ...terms, payer: { firstName: ' Grace ', state: 'ny', country: 'us', currency: 'usd', email: '' } });
    expect(created.payer).toEqual({ firstName: 'Grace', lastName: 'Lovelace', street: '1 Analytical Way', state: 'NY', zip: '12345', country: 'US', externalConstituentId: 'C-7' });
    expect(created).toMatchObject({ currency: 'USD', nextBillDate: '2026-12-21', anchorDay: 21, feeCommissionRate: '5', feeCardRate: '2.9', transactionSourceGroupId: 1 });
  });

  it("asks the partner's references once, for the GUIDs named; one that is not a GUID is unknown without a look-up", async () => {
    const { service, lookups } = setup();
    const violations = await refused(service.create(partner, { ...terms, integrationSourceId: SOURCE.toUpperCase(), organizationId: OTHER, charityId: 'not-a-guid' }));
    expect(lookups).toEqual([{ integrationSourceId: SOURCE, organizationId: OTHER, charityId: undefined }]);
    expect(violations).toEqual([
      { code: 'UnknownReference', field: 'organizationId', message: "{organizationId} is not one of the partner's organizations." },
      { code: 'UnknownReference', field: 'charityId', message: '{charityId} is not a charity of the directory.' },
    ]);
    expect(asApiWire(violations)).toEqual([
      { code: 3004, field: 'OrganizationGuid', message: "'OrganizationGuid' is not one of the partner's organizations." },
      { code: 3004, field: 'CharityId', message: "'CharityId' is not a charity of the directory." },
    ]);
  });

  it('makes no look-up when no reference is named', async () => {
    const { service, lookups } = setup();
    await service.create(partner, terms);
    expect(lookups).toEqual([]);
  });

  it('names every broken term at once, in its own words', async () => {
    const { service } = setup();
    const violations = await refused(service.create(partner, { ...terms, tokenRef: OTHER, preFeeAmountCents: 3000, payFee: true }));
    expect(asApiWire(violations)).toEqual([{ code: 5006, field: 'PreFeeAmount', message: "'PreFeeAmount' must not be more than Amount." }]);
    const unknown = await refused(service.create(partner, { ...terms, tokenRef: OTHER, endDate: '2026-11-21' }));
    expect(unknown.map((v) => [v.code, v.field])).toEqual([
      ['RecurringEndDateNotAfterStart', 'endDate'],
      ['UnknownReference', 'tokenRef'],
    ]);
  });
});

describe('updating a profile', () => {
  it('refuses a cancelled profile before any other rule, and writes nothing', async () => {
    const { service, repository } = setup();
    const p = await service.create(partner, terms);
    await service.cancel(partner, p.id);
    const violations = await refused(service.update(partner, { profileId: p.id, amountCents: 0 }));
    expect(violations).toEqual([{ code: 'RecurringProfileCancelled', field: 'profileId', message: '{profileId} names a cancelled profile, which cannot be updated.' }]);
    expect(asApiWire(violations)[0]).toMatchObject({ code: 5005, field: 'RecurringProfileGuid', message: "'RecurringProfileGuid' names a cancelled profile, which cannot be updated." });
    expect(repository.written).toHaveLength(1);
  });

  it('reopening a completed profile whose next bill date has passed needs a new NextBillDate', async () => {
    const { service, repository } = setup();
    const p = await service.create(partner, { ...terms, startDate: '2026-10-01', nextBillDate: '2026-11-21', endDate: '2026-12-31' });
    repository.rows.set(p.id, { ...p, status: 'completed', endDate: '2026-11-15', nextBillDate: '2026-11-01' });
    const violations = await refused(service.update(partner, { profileId: p.id, endDate: '2027-12-31' }));
    expect(asApiWire(violations)).toEqual([
      { code: 5003, field: 'NextBillDate', message: "'NextBillDate' is required to resume the profile: its next bill date 2026-11-01 has passed." },
    ]);
    const resumed = await service.update(partner, { profileId: p.id, endDate: '2027-12-31', nextBillDate: '2026-12-01' });
    expect(resumed).toMatchObject({ status: 'active', nextBillDate: '2026-12-01', nextAttemptOn: '2026-12-01', anchorDay: 1, failedAttempts: 0, completedAt: null });
  });

  it("checks a new integration source against the partner's, with the other rules", async () => {
    const { service } = setup();
    const p = await service.create(partner, terms);
    expect(await service.update(partner, { profileId: p.id, integrationSourceId: SOURCE })).toMatchObject({ integrationSourceId: SOURCE });
    const violations = await refused(service.update(partner, { profileId: p.id, integrationSourceId: OTHER, nextBillDate: '2026-11-20' }));
    expect(violations.map((v) => v.field)).toEqual(['nextBillDate', 'integrationSourceId']);
  });
});
