import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { backgroundJobs } from '../../../src/composition.ts';
import { loadConfig } from '../../../src/config.ts';
import { type TestContext, createTestContext } from '../../helpers/context.ts';
import { cardToken, createProfile, profilePayments } from './fixtures.ts';

/** The in-process billing worker: a background job of every server process unless BILLING_WORKER=off. */

let ctx: TestContext;
beforeAll(async () => {
  ctx = await createTestContext();
});
afterAll(() => ctx.close());

describe('the billing background job', () => {
  it('is on by default, every BILLING_INTERVAL seconds, and off with BILLING_WORKER=off', () => {
    const defaults = loadConfig({ DATA_DIR: '/nonexistent' });
    expect(defaults).toMatchObject({ billingWorker: true, billingIntervalMs: 300_000, billingRetryDays: [1, 3, 7] });
    expect(loadConfig({ BILLING_WORKER: 'off', BILLING_INTERVAL: '60', BILLING_RETRY_DAYS: '2,4' })).toMatchObject({
      billingWorker: false,
      billingIntervalMs: 60_000,
      billingRetryDays: [2, 4],
    });
    expect(() => loadConfig({ BILLING_RETRY_DAYS: '7,3' })).toThrow(/BILLING_RETRY_DAYS must be increasing whole days/);
    expect(() => loadConfig({ BILLING_WORKER: 'maybe' })).toThrow(/BILLING_WORKER must be on or off/);

    const on = backgroundJobs({ ...ctx.services, config: { ...ctx.services.config, billingWorker: true, billingIntervalMs: 60_000 } });
    expect(on.find((j) => j.name === 'recurring billing')).toMatchObject({ everyMs: 60_000 });
    const off = backgroundJobs({ ...ctx.services, config: { ...ctx.services.config, billingWorker: false } });
    expect(off.find((j) => j.name === 'recurring billing')).toBeUndefined();
  });

  it('bills what is due today on the service clock when it runs', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = (await createProfile(ctx, { TokenGuid: card.id, Amount: '12.00', StartDate: '2026-11-21', BillingFrequency: 'Daily' })).json().RecurringProfileGuid;
    const job = backgroundJobs({ ...ctx.services, config: { ...ctx.services.config, billingWorker: true } }).find((j) => j.name === 'recurring billing')!;
    ctx.clock.set('2026-11-22T00:05:00Z');
    await job.run();
    expect(await profilePayments(ctx, guid)).toEqual([expect.objectContaining({ bill_date: '2026-11-22', successful: true, total_amount_cents: 1200 })]);
  });

  it('winds up when the server stops: a stopped job claims nothing more, and the profile waits for the next run', async () => {
    const card = await cardToken(ctx, ctx.nonProfit);
    ctx.clock.set('2026-11-22T12:00:00Z');
    const guid = (await createProfile(ctx, { TokenGuid: card.id, Amount: '7.00', StartDate: '2026-11-22', BillingFrequency: 'Weekly' })).json().RecurringProfileGuid;
    const job = backgroundJobs({ ...ctx.services, config: { ...ctx.services.config, billingWorker: true } }).find((j) => j.name === 'recurring billing')!;
    job.stop!();
    ctx.clock.set('2026-11-29T00:05:00Z');
    expect(await job.run()).toMatchObject({ claimed: 0 });
    expect(await profilePayments(ctx, guid)).toEqual([]);
    await ctx.services.billing.run();
    expect(await profilePayments(ctx, guid)).toEqual([expect.objectContaining({ bill_date: '2026-11-29', successful: true })]);
  });
});
