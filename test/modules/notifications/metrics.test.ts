import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Metrics } from '../../../src/platform/metrics/metrics.ts';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { startReceiver, type Receiver } from '../../helpers/receiver.ts';
import { makePayment } from '../../http/api/refund-void-fixtures.ts';

/** The metric names docs/operations.md and the alert rules use. */
let ctx: TestContext;
let receiver: Receiver;
const metrics = new Metrics({ readingsMaxAgeMs: 0, processMetrics: false });

beforeAll(async () => {
  ctx = await createTestContext({ metrics, config: { notificationAllowPrivate: true, notificationFirstRetryMs: 1 } });
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
  await ctx.close();
});

describe('notification metrics', () => {
  it('notification_backlog, notification_deliveries_total{result}, notification_delivery_lag_seconds', async () => {
    const [config] = await ctx.services.notificationConfigs.save(ctx.nonProfit.ClientId, [
      { notificationConfigurationTypeId: '1', notificationProtocolTypeId: '1', notificationUrl: receiver.url, retries: 1, isDeleted: false },
    ]);
    await makePayment(ctx);
    await makePayment(ctx);
    expect(await metrics.scrape()).toMatch(/^notification_backlog 2$/m);
    receiver.answer = (_r, i) => (i === 0 ? 500 : 200);
    await ctx.services.notificationWorker.deliverDue();
    await new Promise((r) => setTimeout(r, 20));
    await ctx.services.notificationWorker.deliverDue();
    const text = await metrics.scrape();
    expect(text).toMatch(/^notification_deliveries_total\{result="delivered"\} 2$/m);
    expect(text).toMatch(/^notification_deliveries_total\{result="retried"\} 1$/m);
    expect(text).toMatch(/^notification_deliveries_total\{result="failed"\} 0$/m);
    expect(text).toMatch(/^notification_delivery_lag_seconds_count 2$/m);
    expect(text).toMatch(/^notification_backlog 0$/m);
    expect(config).toBeDefined();
  });
});
