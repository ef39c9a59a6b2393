import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bankToken, cancelProfile, cardToken, createProfile, profileRow, updateProfile } from '../../modules/recurring/fixtures.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';

let ctx: TestContext;
let token: string;
let cardKey: string;

beforeAll(async () => {
  // The manual clock starts on 2026-11-21 (UTC).
  ctx = await createTestContext();
  const t = await cardToken(ctx, ctx.nonProfit);
  token = t.id;
  cardKey = t.gatewayKey;
});
afterAll(() => ctx.close());

const base = (overrides: Record<string, unknown> = {}) => ({
  TokenGuid: token,
  Amount: '25.00',
  StartDate: '2026-11-21',
  BillingFrequency: 'Monthly',
  ...overrides,
});

const codes = (body: { ErrorCode: number; LoggerMessage: string }[]) => body.map((r) => [r.ErrorCode, r.LoggerMessage.split(':')[0]]);
const res400Message = (body: { Message: string }[]) => body[0]!.Message;

describe('POST /api/recurringProfile', () => {
  it('creates a profile: 201 with the spec response, billing from the next bill date after StartDate', async () => {
    const res = await createProfile(ctx, base({ EndDate: '2027-11-21', ExternalEventId: 'EV1', ExternalEventName: 'Gala' }));
    expect(res.statusCode).toBe(201);
    const body = res.json();
    expect(body).toEqual({
      Successful: true,
      Message: 'Recurring profile created.',
      ProcessorMessage: 'This request made no processor call; the profile is charged by the billing runs.',
      TransactionId: null,
      RecurringProfileGuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
      RecurringProfileId: expect.any(Number),
      ResponseCode: 'OK',
    });
    await expectDocumented(ctx.app, 'POST', '/api/recurringProfile', res);
    const row = await profileRow(ctx, body.RecurringProfileGuid);
    expect(row).toMatchObject({
      status: 'active',
      start_date: '2026-11-21',
      end_date: '2027-11-21',
      next_bill_date: '2026-12-21',
      next_attempt_on: '2026-12-21',
      anchor_day: 21,
      amount_cents: 2500,
      pay_fee: false,
      transaction_source_group_id: 1,
      billing_frequency: 'Monthly',
      // The contract's rates when the profile was made (demo contract: card 2.9 %, maximum commission 5 %).
      fee_commission_rate: '5',
      fee_card_rate: '2.9',
    });
  });

  it('numbers profiles: RecurringProfileId increases', async () => {
    const a = (await createProfile(ctx, base())).json();
    const b = (await createProfile(ctx, base())).json();
    expect(b.RecurringProfileId).toBeGreaterThan(a.RecurringProfileId);
    expect(b.RecurringProfileGuid).not.toBe(a.RecurringProfileGuid);
  });

  it('takes the anchor day from StartDate: started on Jan 31, the first bill date is clamped but the schedule keeps the 31st', async () => {
    ctx.clock.set('2027-01-20T12:00:00Z');
    try {
      const res = await createProfile(ctx, base({ StartDate: '2027-01-31' }));
      expect(res.statusCode).toBe(201);
      const row = await profileRow(ctx, res.json().RecurringProfileGuid);
      expect(row).toMatchObject({ next_bill_date: '2027-02-28', anchor_day: 31 });
    } finally {
      ctx.clock.set('2026-11-21T12:00:00Z');
    }
  });

  it('accepts an explicit NextBillDate, whose day anchors the schedule', async () => {
    const res = await createProfile(ctx, base({ NextBillDate: '2026-12-05', BillingFrequency: 'semi-monthly' }));
    expect(res.statusCode).toBe(201);
    expect(await profileRow(ctx, res.json().RecurringProfileGuid)).toMatchObject({ next_bill_date: '2026-12-05', anchor_day: 5, billing_frequency: 'Semi-Monthly' });
  });

  it('does not bill the dates of a StartDate in the past: the first bill date is the first one from today', async () => {
    const res = await createProfile(ctx, base({ StartDate: '2026-06-30', BillingFrequency: 'Monthly' }));
    expect(res.statusCode).toBe(201);
    expect(await profileRow(ctx, res.json().RecurringProfileGuid)).toMatchObject({ next_bill_date: '2026-11-30', anchor_day: 30 });
  });

  it('refuses a StartDate, EndDate or NextBillDate outside 1900-01-01 to 2199-12-31: 400 OutOfRange naming each field', async () => {
    for (const [body, expected] of [
      [{ StartDate: '9999-12-31' }, [[1005, 'StartDate']]],
      [{ StartDate: '9999-12-01', EndDate: '9999-12-31' }, [[1005, 'StartDate'], [1005, 'EndDate']]],
      [{ StartDate: '0001-01-01', BillingFrequency: 'Daily' }, [[1005, 'StartDate']]],
      [{ NextBillDate: '2200-01-01' }, [[1005, 'NextBillDate']]],
      [{ EndDate: '1899-12-31' }, [[1005, 'EndDate']]],
    ] as const) {
      const res = await createProfile(ctx, base(body));
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(codes(res.json()), JSON.stringify(body)).toEqual(expected);
      await expectDocumented(ctx.app, 'POST', '/api/recurringProfile', res);
    }
    expect(res400Message((await createProfile(ctx, base({ StartDate: '0001-01-01' }))).json())).toBe("'StartDate' must be from 1900-01-01 to 2199-12-31.");
  });

  it('computes the first bill date of a StartDate long ago at once: 1900-01-01, Daily, bills from today', async () => {
    const res = await createProfile(ctx, base({ StartDate: '1900-01-01', BillingFrequency: 'Daily' }));
    expect(res.statusCode).toBe(201);
    expect(await profileRow(ctx, res.json().RecurringProfileGuid)).toMatchObject({ start_date: '1900-01-01', next_bill_date: '2026-11-21' });
  });

  it('a schedule that would run past the calendar (9999-12-31) is 400 OutOfRange, not a server error', async () => {
    // Only a clock near the calendar's end gets there once dates are bounded: the backstop.
    ctx.clock.set('9999-12-30T12:00:00.000Z');
    try {
      const res = await createProfile(ctx, base({ StartDate: '2199-06-30', BillingFrequency: 'Annually' }));
      expect(res.statusCode).toBe(400);
      expect(codes(res.json())).toEqual([[1005, 'StartDate']]);
    } finally {
      ctx.clock.set('2026-11-21T12:00:00.000Z');
    }
  });

  it('accepts the token by its CcInfoKey, and a bank-account token', async () => {
    expect((await createProfile(ctx, base({ TokenGuid: cardKey }))).statusCode).toBe(201);
    const bank = await bankToken(ctx, ctx.nonProfit);
    const res = await createProfile(ctx, base({ TokenGuid: bank.id }));
    expect(res.statusCode).toBe(201);
    expect(await profileRow(ctx, res.json().RecurringProfileGuid)).toMatchObject({ fee_card_rate: null });
  });

  it('binds field names case-insensitively and treats null as omitted', async () => {
    const res = await createProfile(ctx, { tokenguid: token, amount: '10', startdate: '2026-11-21', billingfrequency: 'WEEKLY', EndDate: null });
    expect(res.statusCode).toBe(201);
    expect(await profileRow(ctx, res.json().RecurringProfileGuid)).toMatchObject({ next_bill_date: '2026-11-28', end_date: null });
  });

  it('names each missing required field', async () => {
    const res = await createProfile(ctx, {});
    expect(res.statusCode).toBe(400);
    expect(codes(res.json()).sort()).toEqual([
      [1001, 'Amount'],
      [1001, 'BillingFrequency'],
      [1001, 'StartDate'],
      [1001, 'TokenGuid'],
    ]);
    await expectDocumented(ctx.app, 'POST', '/api/recurringProfile', res);
  });

  it.each([
    ['a malformed StartDate', { StartDate: '21/11/2026' }, [[1003, 'StartDate']]],
    ['an impossible EndDate', { EndDate: '2027-02-29' }, [[1003, 'EndDate']]],
    ['an unknown frequency', { BillingFrequency: 'Fortnightly' }, [[5000, 'BillingFrequency']]],
    ['an Amount of 0', { Amount: '0' }, [[1005, 'Amount']]],
    ['an Amount with 3 decimals', { Amount: '1.005' }, [[1003, 'Amount']]],
    ['EndDate on StartDate', { EndDate: '2026-11-21' }, [[5001, 'EndDate']]],
    ['NextBillDate on StartDate', { NextBillDate: '2026-11-21', StartDate: '2026-11-21' }, [[5002, 'NextBillDate']]],
    ['NextBillDate in the past', { StartDate: '2026-01-01', NextBillDate: '2026-11-20' }, [[5003, 'NextBillDate']]],
    ['NextBillDate after EndDate', { NextBillDate: '2027-01-05', EndDate: '2027-01-01' }, [[5004, 'NextBillDate']]],
    ['no bill date before EndDate', { EndDate: '2026-12-01' }, [[5004, 'EndDate']]],
    ['PreFeeAmount above Amount', { PayFee: true, PreFeeAmount: '30.00' }, [[5006, 'PreFeeAmount']]],
    ['an unknown token', { TokenGuid: '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a' }, [[3004, 'TokenGuid']]],
    ['a TransactionSourceGroupId out of the table', { TransactionSourceGroupId: '13' }, [[1006, 'TransactionSourceGroupId']]],
    ['group 12 for a non-profit partner', { TransactionSourceGroupId: '12' }, [[2000, 'TransactionSourceGroupId']]],
    // The same rules and codes as on a payment's or fee quote's line.
    ['a CardProcessingFeeOverride of 100', { CardProcessingFeeOverride: '100' }, [[1005, 'CardProcessingFeeOverride']]],
    ['a negative CardProcessingFeeOverride', { CardProcessingFeeOverride: '-1' }, [[1005, 'CardProcessingFeeOverride']]],
    ['a CardProcessingFeeOverride with 5 decimals', { CardProcessingFeeOverride: '2.12345' }, [[1003, 'CardProcessingFeeOverride']]],
    ['a CommissionRateOverride that is not a number', { CommissionRateOverride: 'five' }, [[1003, 'CommissionRateOverride']]],
    ['an ExternalEventGuid that is not a GUID', { ExternalEventGuid: 'event-1' }, [[1003, 'ExternalEventGuid']]],
    ['an ExternalEventId over 10 characters', { ExternalEventId: 'x'.repeat(11) }, [[1002, 'ExternalEventId']]],
    ['an IntegrationSource of another partner', { IntegrationSource: '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a' }, [[3004, 'IntegrationSource']]],
  ])('refuses %s with a 400 BrokenRule', async (_name, overrides, expected) => {
    const res = await createProfile(ctx, base(overrides));
    expect(res.statusCode).toBe(400);
    expect(codes(res.json())).toEqual(expected);
    await expectDocumented(ctx.app, 'POST', '/api/recurringProfile', res);
  });

  it("refuses another partner's token as unknown, without saying whose it is", async () => {
    const theirs = await cardToken(ctx, ctx.forProfit);
    const res = await createProfile(ctx, base({ TokenGuid: theirs.id }));
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 3004, LoggerMessage: 'TokenGuid: rule 3004' })]);
  });

  it('refuses a card that has expired since it was stored', async () => {
    const card = await cardToken(ctx, ctx.nonProfit, '4242424242424242', '26'); // valid through December 2026
    ctx.clock.set('2027-01-10T12:00:00Z');
    try {
      const res = await createProfile(ctx, base({ TokenGuid: card.id, StartDate: '2027-01-10' }));
      expect(codes(res.json())).toEqual([[3001, 'TokenGuid']]);
    } finally {
      ctx.clock.set('2026-11-21T12:00:00Z');
    }
  });

  it('gives a for-profit partner group 12 and its default processor', async () => {
    const mine = await cardToken(ctx, ctx.forProfit);
    const res = await createProfile(ctx, base({ TokenGuid: mine.id }), ctx.forProfit);
    expect(res.statusCode).toBe(201);
    expect(await profileRow(ctx, res.json().RecurringProfileGuid)).toMatchObject({ transaction_source_group_id: 12, fee_commission_rate: '0' });
  });

  it('needs an AccessToken', async () => {
    const res = await ctx.app.inject({ method: 'POST', url: '/api/recurringProfile', payload: base() });
    expect(res.statusCode).toBe(401);
  });
});

describe('PUT /api/recurringProfile', () => {
  let guid: string;
  beforeAll(async () => {
    guid = (await createProfile(ctx, base({ EndDate: '2027-12-31' }))).json().RecurringProfileGuid;
  });

  it('changes only the fields sent', async () => {
    const res = await updateProfile(ctx, { RecurringProfileGuid: guid, Amount: '40.00', ExternalEventName: 'Spring appeal' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Successful: true, Message: 'Recurring profile updated.', RecurringProfileGuid: guid, ResponseCode: 'OK', TransactionId: null });
    await expectDocumented(ctx.app, 'PUT', '/api/recurringProfile', res);
    expect(await profileRow(ctx, guid)).toMatchObject({ amount_cents: 4000, next_bill_date: '2026-12-21', end_date: '2027-12-31', status: 'active' });
  });

  it('restarts the schedule from a new NextBillDate, re-anchored on its day', async () => {
    const res = await updateProfile(ctx, { RecurringProfileGuid: guid, NextBillDate: '2027-01-31', BillingFrequency: 'Quarterly' });
    expect(res.statusCode).toBe(200);
    expect(await profileRow(ctx, guid)).toMatchObject({ next_bill_date: '2027-01-31', next_attempt_on: '2027-01-31', anchor_day: 31, billing_frequency: 'Quarterly', failed_attempts: 0 });
  });

  it('completes the profile when EndDate moves before the next bill date, and reopens it when EndDate moves later', async () => {
    expect((await updateProfile(ctx, { RecurringProfileGuid: guid, EndDate: '2027-01-15' })).statusCode).toBe(200);
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'completed', completed_at: expect.anything() });
    expect((await updateProfile(ctx, { RecurringProfileGuid: guid, EndDate: '2028-01-15' })).statusCode).toBe(200);
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'active', next_bill_date: '2027-01-31', completed_at: null });
  });

  it('re-anchors on the next bill date when only the frequency changes', async () => {
    const weekly = (await createProfile(ctx, base({ StartDate: '2026-11-01', BillingFrequency: 'Weekly' }))).json().RecurringProfileGuid;
    expect(await profileRow(ctx, weekly)).toMatchObject({ next_bill_date: '2026-11-22', anchor_day: 1 });
    expect((await updateProfile(ctx, { RecurringProfileGuid: weekly, BillingFrequency: 'Monthly' })).statusCode).toBe(200);
    // Monthly from the 22nd: the next charge after 2026-11-22 is 2026-12-22, not the 1st.
    expect(await profileRow(ctx, weekly)).toMatchObject({ next_bill_date: '2026-11-22', anchor_day: 22, billing_frequency: 'Monthly' });
  });

  it('applies the date rules to the profile as it would become', async () => {
    const past = await updateProfile(ctx, { RecurringProfileGuid: guid, StartDate: '2026-11-01', NextBillDate: '2026-11-20' });
    expect(codes(past.json())).toEqual([[5003, 'NextBillDate']]);
    const start = await updateProfile(ctx, { RecurringProfileGuid: guid, StartDate: '2027-02-01' });
    expect(codes(start.json())).toEqual([[5002, 'NextBillDate']]);
    const end = await updateProfile(ctx, { RecurringProfileGuid: guid, EndDate: '2026-11-01' });
    expect(codes(end.json())).toEqual([[5001, 'EndDate']]);
    const preFee = await updateProfile(ctx, { RecurringProfileGuid: guid, PreFeeAmount: '50.00' });
    expect(codes(preFee.json())).toEqual([[5006, 'PreFeeAmount']]);
    await expectDocumented(ctx.app, 'PUT', '/api/recurringProfile', end);
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'active', next_bill_date: '2027-01-31', end_date: '2028-01-15', pre_fee_amount_cents: null });
  });

  it('refuses dates outside 1900-01-01 to 2199-12-31 and leaves the profile as it was', async () => {
    const before = await profileRow(ctx, guid);
    for (const [body, expected] of [
      [{ NextBillDate: '9999-12-31' }, [[1005, 'NextBillDate']]],
      [{ EndDate: '0001-01-01' }, [[1005, 'EndDate']]],
      [{ StartDate: '1899-12-31', EndDate: '2200-01-01' }, [[1005, 'StartDate'], [1005, 'EndDate']]],
    ] as const) {
      const res = await updateProfile(ctx, { RecurringProfileGuid: guid, ...body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(codes(res.json()), JSON.stringify(body)).toEqual(expected);
    }
    expect(await profileRow(ctx, guid)).toEqual(before);
  });

  it("answers 404 problem details for an unknown profile and another partner's", async () => {
    const unknown = await updateProfile(ctx, { RecurringProfileGuid: '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a', Amount: '1' });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.headers['content-type']).toMatch(/application\/problem\+json/);
    await expectDocumented(ctx.app, 'PUT', '/api/recurringProfile', unknown);
    const theirs = await updateProfile(ctx, { RecurringProfileGuid: guid, Amount: '1' }, ctx.forProfit);
    expect(theirs.statusCode).toBe(404);
    expect(theirs.json().detail).toBe(unknown.json().detail);
    expect(await profileRow(ctx, guid)).toMatchObject({ amount_cents: 4000 });
  });

  it('refuses a RecurringProfileGuid that is not a GUID, and a missing one', async () => {
    expect(codes((await updateProfile(ctx, { RecurringProfileGuid: 'abc' })).json())).toEqual([[1003, 'RecurringProfileGuid']]);
    expect(codes((await updateProfile(ctx, { Amount: '5' })).json())).toEqual([[1001, 'RecurringProfileGuid']]);
  });
});

describe('DELETE /api/recurringProfile', () => {
  it('cancels the profile and keeps it; a cancelled profile cannot be updated or cancelled again', async () => {
    const guid = (await createProfile(ctx, base())).json().RecurringProfileGuid;
    const res = await cancelProfile(ctx, guid);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Successful: true, Message: 'Recurring profile cancelled.', RecurringProfileGuid: guid, ResponseCode: 'OK' });
    await expectDocumented(ctx.app, 'DELETE', '/api/recurringProfile', res);
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'cancelled', cancelled_at: expect.anything() });

    const again = await cancelProfile(ctx, guid);
    expect(again.statusCode).toBe(400);
    expect(codes(again.json())).toEqual([[5005, 'RecurringProfileGuid']]);
    await expectDocumented(ctx.app, 'DELETE', '/api/recurringProfile', again);
    const update = await updateProfile(ctx, { RecurringProfileGuid: guid, Amount: '99.00' });
    expect(codes(update.json())).toEqual([[5005, 'RecurringProfileGuid']]);
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'cancelled', amount_cents: 2500 });
  });

  it('ignores an empty body sent with a JSON Content-Type', async () => {
    const guid = (await createProfile(ctx, base())).json().RecurringProfileGuid;
    const res = await ctx.as(ctx.nonProfit, {
      method: 'DELETE',
      url: `/api/recurringProfile?RecurringProfileGuid=${guid}`,
      headers: { 'content-type': 'application/json-patch+json' },
      payload: '',
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ Successful: true, RecurringProfileGuid: guid });
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'cancelled' });
  });

  it("answers 404 for an unknown profile and another partner's, 400 for a malformed guid", async () => {
    const guid = (await createProfile(ctx, base())).json().RecurringProfileGuid;
    const theirs = await cancelProfile(ctx, guid, ctx.forProfit);
    expect(theirs.statusCode).toBe(404);
    await expectDocumented(ctx.app, 'DELETE', '/api/recurringProfile', theirs);
    expect(await profileRow(ctx, guid)).toMatchObject({ status: 'active' });
    expect((await cancelProfile(ctx, '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a')).statusCode).toBe(404);
    expect((await cancelProfile(ctx, 'nope')).statusCode).toBe(400);
  });
});

describe('GET /api/recurringProfile (an extension: the spec has no read)', () => {
  const read = (guid: string, partner = ctx.nonProfit) => ctx.as(partner, { method: 'GET', url: `/api/recurringProfile?RecurringProfileGuid=${guid}` });

  it('reads the terms, the state and the next bill date back', async () => {
    const guid = (await createProfile(ctx, base({ EndDate: '2027-12-31', PayFee: true, PreFeeAmount: '20.00' }))).json().RecurringProfileGuid;
    const res = await read(guid.toUpperCase());
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      Successful: true,
      Message: 'Recurring profile found.',
      ProcessorMessage: 'This request made no processor call; the profile is charged by the billing runs.',
      TransactionId: null,
      RecurringProfileGuid: guid,
      RecurringProfileId: expect.any(Number),
      ResponseCode: 'OK',
      Status: 'Active',
      BillingFrequency: 'Monthly',
      Amount: 25,
      PreFeeAmount: 20,
      PayFee: true,
      TransactionSourceGroupId: '1',
      StartDate: '2026-11-21',
      EndDate: '2027-12-31',
      NextBillDate: '2026-12-21',
      NextAttemptDate: '2026-12-21',
      FailedAttempts: 0,
      LastFailure: null,
      LastPaymentGuid: null,
      TokenGuid: token,
      ProcessorGuid: expect.stringMatching(/^[0-9a-f-]{36}$/),
    });
    await expectDocumented(ctx.app, 'GET', '/api/recurringProfile', res);
    await cancelProfile(ctx, guid);
    expect((await read(guid)).json()).toMatchObject({ Status: 'Cancelled' });
  });

  it("answers 404 for an unknown profile and another partner's, 400 for a malformed guid", async () => {
    const guid = (await createProfile(ctx, base())).json().RecurringProfileGuid;
    const theirs = await read(guid, ctx.forProfit);
    expect(theirs.statusCode).toBe(404);
    await expectDocumented(ctx.app, 'GET', '/api/recurringProfile', theirs);
    expect((await read('0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a')).statusCode).toBe(404);
    expect((await read('nope')).statusCode).toBe(400);
  });
});

describe('OpenAPI', () => {
  it('documents the four operations with request and response schemas', async () => {
    const doc = (await ctx.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    const path = doc.paths['/api/recurringProfile'];
    expect(Object.keys(path).sort()).toEqual(['delete', 'get', 'post', 'put']);
    expect(path.post.requestBody).toBeDefined();
    expect(path.put.requestBody).toBeDefined();
    expect(path.post.responses['201']).toBeDefined();
    expect(path.delete.parameters.map((p: { name: string }) => p.name)).toContain('RecurringProfileGuid');
  });
});
