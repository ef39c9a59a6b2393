import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createTestContext, type TestContext, type TestPartner } from '../../helpers/context.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { makePayment } from '../../http/api/refund-void-fixtures.ts';
import { retryDelayMs, DEFAULT_RETRY_SCHEDULE } from '../../../src/modules/notifications/retry-schedule.ts';
import { ConfigError, loadConfig } from '../../../src/config.ts';

/**
 * The delivery worker against real receivers on 127.0.0.1: retries and their count, Retries 0,
 * the timeout, no redirects, per-payment order, and a slow receiver that holds up nobody else.
 * A fast retry schedule comes from the configuration (NOTIFICATION_FIRST_RETRY in ms here).
 */
let ctx: TestContext;
const receivers: Receiver[] = [];
let stop: AbortController | undefined;
let running: Promise<void> | undefined;

beforeAll(async () => {
  ctx = await createTestContext({ config: { notificationAllowPrivate: true, notificationFirstRetryMs: 40, notificationTimeoutMs: 1_000, notificationConcurrency: 4 } });
});
afterEach(async () => {
  stop?.abort();
  await running;
  stop = undefined;
  await ctx.store.sql.exec("UPDATE notification_configs SET deleted_at = now() WHERE deleted_at IS NULL; UPDATE notifications SET status = 'cancelled' WHERE status IN ('waiting', 'pending')");
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});
afterAll(() => ctx.close());

async function receiverFor(partner: TestPartner, retries?: number): Promise<{ receiver: Receiver; configId: number }> {
  const receiver = await startReceiver();
  receivers.push(receiver);
  const [config] = await ctx.services.notificationConfigs.save(partner.ClientId, [
    { notificationConfigurationTypeId: '1', notificationProtocolTypeId: '1', notificationUrl: receiver.url, retries, isDeleted: false },
  ]);
  return { receiver, configId: config!.id };
}

function startWorker() {
  stop = new AbortController();
  running = ctx.services.notificationWorker.run(stop.signal);
}

async function rows(configId: number) {
  return ctx.store.sql.query<{ id: string; status: string; retry_count: number; delivered_at: Date | null; last_error: string | null; last_status_code: number | null }>(
    'SELECT id, status, retry_count, delivered_at, last_error, last_status_code FROM notifications WHERE config_id = $1 ORDER BY id',
    [configId],
  );
}

async function until(check: () => Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('retries', () => {
  it('a receiver that fails 3 times then answers 200 gets it, with RetryCount 3', async () => {
    const { receiver, configId } = await receiverFor(ctx.nonProfit);
    receiver.answer = (_r, i) => (i < 3 ? 503 : 200);
    const paid = await makePayment(ctx);
    startWorker();
    await until(async () => (await rows(configId))[0]?.status === 'delivered');
    expect(receiver.received).toHaveLength(4);
    // The same event each time: one id to de-duplicate by.
    expect(new Set(receiver.received.map((r) => r.headers['payments-event-id'])).size).toBe(1);
    const [row] = await rows(configId);
    expect(row).toMatchObject({ status: 'delivered', retry_count: 3, last_status_code: 200, last_error: null });
    const history = await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/notifications?paymentId=${paid.PaymentId}` });
    expect(history.json()).toEqual([expect.objectContaining({ RetryCount: 3, DeliveredDate: expect.any(String), Status: 'Delivered' })]);
  });

  it('Retries 0 tries once, then the notification is failed', async () => {
    const { receiver, configId } = await receiverFor(ctx.nonProfit, 0);
    receiver.answer = () => 500;
    await makePayment(ctx);
    startWorker();
    await until(async () => (await rows(configId))[0]?.status === 'failed');
    await new Promise((r) => setTimeout(r, 300));
    expect(receiver.received).toHaveLength(1);
    expect((await rows(configId))[0]).toMatchObject({ status: 'failed', retry_count: 0, last_status_code: 500, last_error: 'the receiver answered HTTP 500' });
  });

  it('no answer within NOTIFICATION_TIMEOUT is a failure; a redirect is not followed', async () => {
    const { receiver, configId } = await receiverFor(ctx.nonProfit, 1);
    receiver.answer = async (_r, i) => {
      if (i === 0) await new Promise((r) => setTimeout(r, 1_500));
      return i === 0 ? 200 : 302;
    };
    await makePayment(ctx);
    startWorker();
    await until(async () => (await rows(configId))[0]?.status === 'failed');
    expect(receiver.received).toHaveLength(2);
    expect((await rows(configId))[0]).toMatchObject({ status: 'failed', retry_count: 1, last_status_code: 302 });
  });

  it('the default schedule: ~10 s, the second within a minute of the first attempt, the tenth about a day after it', () => {
    const waits = (random: number) => Array.from({ length: 10 }, (_, i) => retryDelayMs(DEFAULT_RETRY_SCHEDULE, i + 1, random));
    const mid = waits(0.5);
    expect(mid[0]).toBe(10_000);
    expect(mid[0]! + mid[1]!).toBeLessThan(60_000);
    const total = mid.reduce((a, b) => a + b, 0);
    expect(total).toBeGreaterThan(20 * 3_600_000);
    expect(total).toBeLessThan(28 * 3_600_000);
    // Jitter: +-20 %.
    expect(waits(0)[0]).toBe(8_000);
    expect(waits(0.999_999)[0]).toBe(12_000);
  });
});

describe('order and isolation', () => {
  it("a payment's later change is not delivered before an earlier one, even when the earlier one is retried", async () => {
    const { receiver, configId } = await receiverFor(ctx.nonProfit);
    receiver.answer = (_r, i) => (i < 2 ? 500 : 200);
    const paid = await makePayment(ctx);
    const voided = await ctx.as(ctx.nonProfit, { method: 'POST', url: '/api/void', payload: { PaymentGuid: paid.PaymentGuid, Reason: 'asked' } });
    expect(voided.statusCode).toBe(200);
    startWorker();
    await until(async () => (await rows(configId)).every((r) => r.status === 'delivered'));
    const statuses = receiver.received.map((r) => (JSON.parse(r.body) as { PaymentResultValue: string }).PaymentResultValue);
    expect(statuses).toEqual(['Successful', 'Successful', 'Successful', 'Cancelled']);
  });

  it("a receiver that never answers holds up no other partner's deliveries", async () => {
    // Accepts connections and never answers.
    const sockets = new Set<import('node:net').Socket>();
    const silent = createServer(() => {});
    silent.on('connection', (s) => sockets.add(s));
    await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r));
    const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/hook`;
    try {
      const [slowConfig] = await ctx.services.notificationConfigs.save(ctx.nonProfit.ClientId, [
        { notificationConfigurationTypeId: '1', notificationProtocolTypeId: '1', notificationUrl: silentUrl, isDeleted: false },
      ]);
      const { receiver, configId } = await receiverFor(ctx.forProfit);
      for (let i = 0; i < 6; i++) await makePayment(ctx);
      for (let i = 0; i < 6; i++) await makePayment(ctx, { partner: ctx.forProfit });
      const started = Date.now();
      startWorker();
      await until(async () => (await rows(configId)).every((r) => r.status === 'delivered'), 5_000);
      // Well before the silent receiver's first timeout (1 s) has freed a single slot.
      expect(Date.now() - started).toBeLessThan(900);
      expect(receiver.received).toHaveLength(6);
      expect((await rows(slowConfig!.id)).every((r) => r.status === 'pending')).toBe(true);
    } finally {
      for (const s of sockets) s.destroy();
      silent.close();
    }
  });
});

describe('operators', () => {
  it('pause holds the notifications, resume sends them; redeliver sends a delivered one again with the same event id', async () => {
    const { receiver, configId } = await receiverFor(ctx.nonProfit);
    expect(await ctx.services.notificationConfigs.setPaused({ configId }, true)).toBe(1);
    await makePayment(ctx);
    expect(await ctx.services.notificationWorker.deliverDue()).toBe(0);
    expect(receiver.received).toHaveLength(0);
    await ctx.services.notificationConfigs.setPaused({ partnerId: ctx.nonProfit.ClientId }, false);
    await ctx.services.notificationWorker.deliverDue();
    expect(receiver.received).toHaveLength(1);
    const [row] = await rows(configId);
    const { redelivered } = await ctx.services.notifications.redeliver([Number(row!.id)], undefined);
    expect(redelivered).toHaveLength(1);
    await ctx.services.notificationWorker.deliverDue();
    expect(receiver.received).toHaveLength(2);
    expect(receiver.received[1]!.headers['payments-event-id']).toBe(receiver.received[0]!.headers['payments-event-id']);
    expect(receiver.received[1]!.body).toBe(receiver.received[0]!.body);
  });
});

describe('retention', () => {
  it('is NOTIFICATION_RETENTION_DAYS, 90 by default, at least 30 (redeliveries and histories need the rows)', () => {
    expect(loadConfig({}).notificationRetentionDays).toBe(90);
    expect(loadConfig({ NOTIFICATION_RETENTION_DAYS: '400' }).notificationRetentionDays).toBe(400);
    expect(() => loadConfig({ NOTIFICATION_RETENTION_DAYS: '7' })).toThrow(ConfigError);
  });

  it('the purge deletes notifications created more than NOTIFICATION_RETENTION_DAYS (90) ago whose delivery ended, never one still to be sent', async () => {
    const { configId } = await receiverFor(ctx.nonProfit);
    const paid = [await makePayment(ctx), await makePayment(ctx), await makePayment(ctx)];
    await ctx.services.notificationWorker.deliverDue();
    await makePayment(ctx);
    const before = await rows(configId);
    expect(before.map((r) => r.status)).toEqual(['delivered', 'delivered', 'delivered', 'pending']);
    const [, , kept, pending] = before;
    // Created 91 days before the database's now, but for one delivered 89 days ago.
    await ctx.store.sql.query("UPDATE notifications SET created_at = clock_timestamp() - interval '91 days' WHERE config_id = $1 AND id <> $2", [configId, kept!.id]);
    await ctx.store.sql.query("UPDATE notifications SET created_at = clock_timestamp() - interval '89 days' WHERE id = $1", [kept!.id]);
    const was = ctx.clock.now();
    ctx.clock.set(new Date());
    try {
      expect(await ctx.services.notifications.purgeEnded()).toBe(2);
    } finally {
      ctx.clock.set(was);
    }
    expect((await rows(configId)).map((r) => [r.id, r.status])).toEqual([
      [kept!.id, 'delivered'],
      [pending!.id, 'pending'],
    ]);
    const history = await ctx.as(ctx.nonProfit, { method: 'GET', url: `/api/notifications?paymentId=${paid[0]!.PaymentId}` });
    expect(history.statusCode).toBe(404);
  });
});
