import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

const next = (query: string) => ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/nextBillDate?${query}` });

describe('GET /api/nextBillDate', () => {
  it('returns the first billing date after Date, at midnight', async () => {
    const res = await next('Date=2026-11-21&BillingFrequency=Monthly');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ NextBillDate: '2026-12-21T00:00:00' });
    await expectDocumented(ctx.app, 'GET', '/api/nextBillDate', res);
  });

  it.each([
    ['2026-11-21', 'Daily', '2026-11-22'],
    ['2026-11-21', 'Weekly', '2026-11-28'],
    ['2026-12-25', 'Bi-Weekly', '2027-01-08'],
    ['2027-01-31', 'Monthly', '2027-02-28'],
    ['2028-01-31', 'Monthly', '2028-02-29'],
    ['2026-12-31', 'Bi-Monthly', '2027-02-28'],
    ['2026-11-30', 'Quarterly', '2027-02-28'],
    ['2026-08-31', 'Semi-Annually', '2027-02-28'],
    ['2028-02-29', 'Annually', '2029-02-28'],
    ['2026-11-03', 'Semi-Monthly', '2026-11-18'],
    ['2026-11-20', 'Semi-Monthly', '2026-12-05'],
    ['2027-01-30', 'Semi-Monthly', '2027-02-15'],
    ['2027-02-15', 'Semi-Monthly', '2027-02-28'],
    ['2027-01-31', 'Semi-Monthly', '2027-02-16'],
    ['2027-12-31', 'Semi-Monthly', '2028-01-16'],
    ['2027-01-16', 'Semi-Monthly', '2027-02-01'],
  ])('from %s, %s: %s', async (date, frequency, expected) => {
    const res = await next(`Date=${date}&BillingFrequency=${frequency}`);
    expect(res.json()).toEqual({ NextBillDate: `${expected}T00:00:00` });
  });

  it('matches frequency names and parameter names case-insensitively', async () => {
    const res = await next('date=2026-11-21&billingfrequency=bi-WEEKLY');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ NextBillDate: '2026-12-05T00:00:00' });
  });

  it.each([
    ['a malformed date', 'Date=21-11-2026&BillingFrequency=Monthly', 1003, "'Date' must be a date in the form yyyy-MM-dd."],
    ['a date with a time', 'Date=2026-11-21T00:00:00&BillingFrequency=Monthly', 1003, "'Date' must be a date in the form yyyy-MM-dd."],
    ['an impossible date', 'Date=2027-02-29&BillingFrequency=Monthly', 1003, "'Date' is not a date of the calendar."],
    ['month 13', 'Date=2026-13-01&BillingFrequency=Monthly', 1003, "'Date' is not a date of the calendar."],
    ['an empty date', 'Date=&BillingFrequency=Monthly', 1001, "'Date' is required."],
    ['no date', 'BillingFrequency=Monthly', 1001, "'Date' is required."],
    ['the last date there is', 'Date=9999-12-31&BillingFrequency=Daily', 1005, "'Date' is too late: the next bill date would be after 9999-12-31."],
  ])('answers %s with a 400 BrokenRule', async (_name, query, code, message) => {
    const res = await next(query);
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: code, Message: message })]);
    await expectDocumented(ctx.app, 'GET', '/api/nextBillDate', res);
  });

  it('answers an unknown frequency with 404 problem details ("no data found")', async () => {
    const res = await next('Date=2026-11-21&BillingFrequency=Fortnightly');
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.json()).toMatchObject({ status: 404, title: 'Not Found', detail: expect.stringMatching(/^No data found: 'Fortnightly' is not a BillingFrequency/) });
    await expectDocumented(ctx.app, 'GET', '/api/nextBillDate', res);
  });

  it('answers an empty frequency as missing (400, 1001), as an empty Date is', async () => {
    for (const query of ['Date=2026-11-21&BillingFrequency=', 'Date=2026-11-21&BillingFrequency=%20']) {
      const res = await next(query);
      expect(res.statusCode, query).toBe(400);
      expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1001, Message: "'BillingFrequency' is required." })]);
    }
  });

  it('gives the bad request outcome before the not found one', async () => {
    const res = await next('Date=2026-02-30&BillingFrequency=Fortnightly');
    expect(res.statusCode).toBe(400);
  });

  it('needs an AccessToken', async () => {
    const res = await ctx.app.inject({ method: 'GET', url: '/api/nextBillDate?Date=2026-11-21&BillingFrequency=Monthly' });
    expect(res.statusCode).toBe(401);
  });
});
