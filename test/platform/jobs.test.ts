import type { FastifyBaseLogger } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { backgroundJobs } from '../../src/composition.ts';
import { type BackgroundJob, startBackgroundJobs } from '../../src/platform/jobs.ts';
import { ManualClock, systemClock } from '../../src/platform/clock.ts';
import { CLOCK_SKEW_LIMIT_MS, clockSkewMs } from '../../src/modules/operations/clock-agreement.ts';
import { OperationsRepository } from '../../src/modules/operations/operations-repository.ts';
import { cardToken, createProfile, profilePayments } from '../modules/recurring/fixtures.ts';
import { type TestContext, createTestContext } from '../helpers/context.ts';

/**
 * Jobs that charge or settle by this process's clock do not run while it disagrees with the
 * database server's (a clock audit: a billing worker whose clock was a year ahead charged a weekly
 * profile 52 times in one run).
 */

const DAY_MS = 86_400_000;
let ctx: TestContext;
// The real time, so that the manual clock starts in agreement with the database's.
const clock = new ManualClock(new Date());
beforeAll(async () => {
  ctx = await createTestContext({ clock, config: { billingWorker: true, billingIntervalMs: 20 } });
});
afterAll(() => ctx.close());

/** The database server's clock. */
const databaseNow = () => new OperationsRepository(ctx.store).databaseNowMs();

function fakeLog() {
  return { error: vi.fn(), warn: vi.fn(), info: vi.fn(), debug: vi.fn() } as unknown as FastifyBaseLogger & { error: ReturnType<typeof vi.fn> };
}

async function runJobsFor(jobs: BackgroundJob[], log: FastifyBaseLogger, ms: number) {
  const running = startBackgroundJobs(jobs, log, { clockSkewMs: () => clockSkewMs(databaseNow, ctx.clock) });
  await new Promise((resolve) => setTimeout(resolve, ms));
  await running.stop();
}

describe('the clock check of background jobs', () => {
  it("measures this process's clock against the database server's", async () => {
    expect(Math.abs((await clockSkewMs(databaseNow, systemClock))!)).toBeLessThan(5_000);
    const ahead = new ManualClock(new Date(Date.now() + 3_600_000));
    expect(Math.round((await clockSkewMs(databaseNow, ahead))! / 60_000)).toBe(60);
  });

  it('marks every job: each charges, settles or deletes by the clock', () => {
    const flagged = backgroundJobs(ctx.services).map((j) => [j.name, j.needsAgreedClock === true]);
    expect(flagged).toEqual([
      ['purge expired access tokens', true],
      ['purge expired gateway sessions', true],
      ['purge old pay link responseTokens', true],
      ['write outcomes kept while the database was unavailable', false],
      ['resolve held outcomes from the processors', true],
      ['purge expired idempotency keys', true],
      ['purge notifications past their retention', true],
      ['settlement', true],
      ['recurring billing', true],
      // Schedules by the database's clock (docs/decisions.md, "Notifications").
      ['notification delivery', false],
    ]);
  });

  it('skips a flagged job while the clocks disagree, with an error naming it, and runs the others', async () => {
    const flagged = { name: 'flagged', everyMs: 10, needsAgreedClock: true, run: vi.fn(async () => {}) };
    const other = { name: 'other', everyMs: 10, run: vi.fn(async () => {}) };
    clock.set(new Date(Date.now() - CLOCK_SKEW_LIMIT_MS - 30_000));
    const log = fakeLog();
    await runJobsFor([flagged, other], log, 150);
    expect(flagged.run).not.toHaveBeenCalled();
    expect(other.run).toHaveBeenCalled();
    // Said once, not at every skipped run.
    expect(log.error).toHaveBeenCalledTimes(1);
    expect(log.error).toHaveBeenCalledWith(expect.objectContaining({ job: 'flagged' }), expect.stringMatching(/clock is more than 60 s from the database/));
    expect(log.error.mock.calls[0]![0].clockAheadOfDatabaseSeconds).toBeLessThanOrEqual(-90);

    clock.set(new Date(Date.now() + 5_000));
    await runJobsFor([flagged], fakeLog(), 120);
    expect(flagged.run).toHaveBeenCalled();
  });

  it('skips a run when the clocks could not be compared, and starts none once stop is called', async () => {
    const flagged = { name: 'flagged', everyMs: 10, needsAgreedClock: true, run: vi.fn(async () => {}) };
    const log = fakeLog();
    const untold = startBackgroundJobs([flagged], log, { clockSkewMs: async () => null });
    await new Promise((resolve) => setTimeout(resolve, 80));
    await untold.stop();
    expect(flagged.run).not.toHaveBeenCalled();
    expect(log.warn).toHaveBeenCalledTimes(1);

    // A stop that comes while the clock is being compared: the run does not start after it.
    let checking!: () => void;
    const checked = new Promise<void>((resolve) => (checking = resolve));
    const slow = startBackgroundJobs([flagged], fakeLog(), {
      clockSkewMs: async () => {
        checking();
        await new Promise((resolve) => setTimeout(resolve, 50));
        return 0;
      },
    });
    await checked;
    await slow.stop();
    expect(flagged.run).not.toHaveBeenCalled();
  });

  it('a billing worker whose clock is a year ahead charges nothing; back in time, it charges what is due', async () => {
    // A weekly profile made eight days ago: one bill date or two are due today.
    clock.set(new Date(Date.now() - 8 * DAY_MS));
    const start = clock.now().toISOString().slice(0, 10);
    const card = await cardToken(ctx, ctx.nonProfit);
    const guid = (await createProfile(ctx, { TokenGuid: card.id, Amount: '5.00', StartDate: start, BillingFrequency: 'Weekly' })).json().RecurringProfileGuid;
    const billing = () => backgroundJobs(ctx.services).filter((j) => j.name === 'recurring billing');

    clock.set(new Date(Date.now() + 365 * DAY_MS));
    const log = fakeLog();
    await runJobsFor(billing(), log, 200);
    expect(await profilePayments(ctx, guid)).toEqual([]);
    expect(log.error).toHaveBeenCalledWith(expect.objectContaining({ job: 'recurring billing' }), expect.any(String));

    clock.set(new Date());
    const today = clock.now().toISOString().slice(0, 10);
    const running = startBackgroundJobs(billing(), fakeLog(), { clockSkewMs: () => clockSkewMs(databaseNow, ctx.clock) });
    try {
      await vi.waitFor(async () => expect((await profilePayments(ctx, guid)).length).toBeGreaterThanOrEqual(1), { timeout: 10_000, interval: 50 });
    } finally {
      await running.stop();
    }
    const charged = await profilePayments(ctx, guid);
    expect(charged.length).toBeLessThanOrEqual(2);
    for (const p of charged) expect(p).toMatchObject({ successful: true, bill_date: expect.toSatisfy((d: string) => d >= start && d <= today) });
  });
});
