import { describe, expect, it, vi } from 'vitest';
import { ManualClock } from '../../../src/platform/clock.ts';
import { NotFoundError, ValidationError } from '../../../src/platform/errors.ts';
import type { AuthenticatedPartner } from '../../../src/domain/partner.ts';
import { Rule } from '../../../src/domain/rules.ts';
import type { ResolvedReferences } from '../../../src/modules/partners/reference-service.ts';
import { PAY_LINK_LEASE_MS, PayLinkService, type PayLinkServiceDeps } from '../../../src/modules/paylinks/paylink-service.ts';
import type { PayLinkCreateInput } from '../../../src/modules/paylinks/paylink-rules.ts';
import type { StoredPayLink } from '../../../src/modules/paylinks/paylink.ts';
import { wireViolation } from '../../../src/http/api/wire-names.ts';

/** The pay link service against a fake repository and fake neighbours: its rules without a database. */

const PARTNER: AuthenticatedPartner = { id: '11111111-1111-4111-8111-111111111111', name: 'Friends of the Library', kind: 'non-profit' };
const SOURCE = '22222222-2222-4222-8222-222222222222';
const PROCESSOR = '33333333-3333-4333-8333-333333333333';
const LINK_ID = 'A'.repeat(24);

const input = (overrides: Partial<PayLinkCreateInput> = {}): PayLinkCreateInput => ({
  redirectUrl: 'https://partner.example/thanks',
  lines: [{ amountCents: 2500, type: 1 }],
  ...overrides,
});

const resolved = (overrides: Partial<ResolvedReferences> = {}): ResolvedReferences => ({
  processor: { id: PROCESSOR, adapter: 'simulator', paymentMethodTypes: [1, 2, 3, 4, 5, 6, 7] },
  integrationSource: { id: SOURCE, duplicateCheck: true },
  organizationId: null,
  charityId: null,
  named: { processor: false, integrationSource: false, organization: false, charity: false },
  ...overrides,
});

function fakeRepository(overrides: Partial<PayLinkServiceDeps['repository']> = {}): PayLinkServiceDeps['repository'] {
  return {
    insert: vi.fn(async () => {}),
    cancel: vi.fn(async () => true),
    find: vi.fn(async () => undefined),
    hold: vi.fn(async () => true),
    release: vi.fn(async () => true),
    complete: vi.fn(async () => true),
    firstSuccessfulPayment: vi.fn(async () => undefined),
    completeWithPayment: vi.fn(async () => true),
    paymentIdOf: vi.fn(async () => null),
    setRecurringProfile: vi.fn(async () => {}),
    paymentHoldingTranId: vi.fn(async () => undefined),
    ...overrides,
  };
}

function service(deps: Partial<PayLinkServiceDeps> = {}) {
  const clock = new ManualClock('2026-11-21T12:00:00.000Z');
  const all: PayLinkServiceDeps = {
    repository: fakeRepository(),
    clock,
    ids: { uuid: () => '44444444-4444-4444-8444-444444444444', secret: () => LINK_ID },
    fees: { quote: vi.fn(async () => ({ lines: [], totalPaymentCents: 2500, totalFeesCents: 0, totalTaxCents: 0, totalTipCents: 0, paymentMethodTypeId: undefined })) },
    references: { resolve: vi.fn(async () => resolved()) },
    partners: { listIntegrationSources: vi.fn(async () => []) },
    tokens: { find: vi.fn(async () => undefined) },
    site: { publicBaseUrl: 'https://pay.example', providerName: 'Provider', providerUrl: 'https://provider.example' },
    ...deps,
  };
  return { links: new PayLinkService(all), deps: all, clock };
}

const violationsOf = async (promise: Promise<unknown>) => {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ValidationError);
  return (err as ValidationError).violations;
};

describe('the TranId of a new link (the duplicate-TranId rule)', () => {
  it("is refused when a payment of the partner's default source holds it under duplicate checking", async () => {
    const repository = fakeRepository({ paymentHoldingTranId: vi.fn(async () => 'pay-1') });
    const { links } = service({ repository });
    const violations = await violationsOf(links.create(PARTNER, input({ tranId: ' INV-7 ' })));
    expect(violations).toEqual([
      { code: Rule.PayLinkTranIdUsed, field: 'tranId', message: '{tranId} is already the TranId of payment pay-1 of this integration source: a link with it could never be paid.' },
    ]);
    expect(violations.map((v) => wireViolation(v))[0]).toMatchObject({ field: 'TranId', message: "'TranId' is already the TranId of payment pay-1 of this integration source: a link with it could never be paid." });
    expect(repository.paymentHoldingTranId).toHaveBeenCalledWith(SOURCE, 'INV-7');
    expect(repository.insert).not.toHaveBeenCalled();
  });

  it('is taken as it is when the source does not check duplicates', async () => {
    const repository = fakeRepository();
    const { links } = service({ repository, references: { resolve: vi.fn(async () => resolved({ integrationSource: { id: SOURCE, duplicateCheck: false } })) } });
    const link = await links.create(PARTNER, input({ tranId: 'INV-7' }));
    expect(link).toMatchObject({ id: LINK_ID, url: `https://pay.example/paylink/${LINK_ID}`, tranId: 'INV-7', status: 'active' });
    expect(repository.paymentHoldingTranId).not.toHaveBeenCalled();
    expect(repository.insert).toHaveBeenCalledWith(expect.objectContaining({ id: LINK_ID, partnerId: PARTNER.id, tranId: 'INV-7' }));
  });
});

describe("the references of a new link (ReferenceService: is it the partner's?)", () => {
  it('names the processor and the integration source that are not the partner\'s, in one resolution', async () => {
    const resolve = vi.fn(async () => resolved({ processor: null, integrationSource: null }));
    const { links } = service({ references: { resolve } });
    const violations = await violationsOf(links.create(PARTNER, input({ processorGuid: PROCESSOR, integrationSource: ` ${SOURCE.toUpperCase()} ` })));
    expect(violations).toEqual([
      { code: Rule.UnknownReference, field: 'processorGuid', message: "{processorGuid} is not one of the partner's processors." },
      { code: Rule.UnknownReference, field: 'integrationSource', message: "{integrationSource} is not one of the partner's integration sources." },
    ]);
    expect(resolve).toHaveBeenCalledTimes(1);
    expect(resolve).toHaveBeenCalledWith(PARTNER.id, { processorId: PROCESSOR, integrationSourceId: ` ${SOURCE.toUpperCase()} ` });
  });

  it("needs a for-profit partner's processor", async () => {
    const { links } = service();
    const violations = await violationsOf(links.create({ ...PARTNER, kind: 'for-profit' }, input({ lines: [{ amountCents: 2500, type: 12 }] })));
    expect(violations).toEqual([{ code: Rule.ProcessorRequired, field: 'processorGuid', message: '{processorGuid} is required for a for-profit partner.' }]);
  });

  it("shows the named source's name as PoweredByText unless the link has its own", async () => {
    const partners = { listIntegrationSources: vi.fn(async () => [{ id: SOURCE, name: 'Spring Gala' }]) } as unknown as PayLinkServiceDeps['partners'];
    const { links } = service({ partners });
    expect((await links.create(PARTNER, input({ integrationSource: SOURCE }))).settings.poweredByText).toBe('Spring Gala');
    expect((await links.create(PARTNER, input({ integrationSource: SOURCE, poweredByText: 'Us' }))).settings.poweredByText).toBe('Us');
    expect((await links.create(PARTNER, input())).settings.poweredByText).toBe('Provider');
  });
});

describe('a link as the page reads and holds it', () => {
  const stored = (): StoredPayLink => ({
    id: LINK_ID,
    partner: PARTNER,
    integrationSourceId: null,
    processorId: null,
    workflowType: 1,
    status: 'active',
    redirectUrl: 'https://partner.example/thanks',
    tranId: null,
    lines: [],
    settings: {} as StoredPayLink['settings'],
    paymentId: null,
    tokenId: null,
    recurringProfileId: null,
    createdAt: new Date('2026-11-21T12:00:00.000Z'),
  });

  it('is not found when its partner is disabled, nor for an id that cannot be one (without a query)', async () => {
    const repository = fakeRepository({ find: vi.fn(async () => ({ link: stored(), partnerActive: false })) });
    const { links } = service({ repository });
    expect(await links.find(LINK_ID)).toBeUndefined();
    expect(await links.find('not-an-id')).toBeUndefined();
    expect(repository.find).toHaveBeenCalledTimes(1);
    await expect(links.cancel(PARTNER, 'not-an-id')).rejects.toBeInstanceOf(NotFoundError);
    expect(repository.cancel).not.toHaveBeenCalled();
  });

  it('is held until now + PAY_LINK_LEASE_MS: that instant is the lease (the fencing token)', async () => {
    const repository = fakeRepository();
    const { links, clock } = service({ repository });
    const lease = await links.hold(LINK_ID);
    const until = new Date(clock.now().getTime() + PAY_LINK_LEASE_MS);
    expect(lease).toEqual({ id: LINK_ID, until });
    expect(repository.hold).toHaveBeenCalledWith(LINK_ID, clock.now(), until);
    repository.hold = vi.fn(async () => false);
    expect(await links.hold(LINK_ID)).toBeUndefined();
  });

  it('is completed with its successful payment only when there is one', async () => {
    const repository = fakeRepository();
    const { links } = service({ repository });
    expect(await links.completeWithItsPayment(LINK_ID)).toBe(false);
    expect(repository.completeWithPayment).not.toHaveBeenCalled();
    repository.firstSuccessfulPayment = vi.fn(async () => 'pay-2');
    expect(await links.completeWithItsPayment(LINK_ID)).toBe(true);
    expect(repository.completeWithPayment).toHaveBeenCalledWith(LINK_ID, 'pay-2', expect.any(Date));
  });
});
