import type { Metrics } from '../../platform/metrics/metrics.ts';
import type { DeliveryObserver } from '../notifications/delivery-worker.ts';
import type { NotificationService } from '../notifications/notification-service.ts';

/**
 * The notification metrics docs/operations.md promises: the backlog (read from the outbox at a
 * scrape, at most every 15 s: every process reports the database's one figure), the attempts of
 * this process by result, and the lag from a change's commit to its delivery.
 */
export function meterNotifications(metrics: Metrics, worker: { observe(observer: DeliveryObserver): void }, notifications: NotificationService): void {
  const deliveries = metrics.counter({
    name: 'notification_deliveries_total',
    help: 'Notification attempts of this process by result: delivered (a 2xx within NOTIFICATION_TIMEOUT), retried (failed, tried again later), failed (failed with its retries spent).',
    labelNames: ['result'] as const,
  });
  for (const result of ['delivered', 'retried', 'failed']) deliveries.inc({ result }, 0);
  const lag = metrics.histogram({
    name: 'notification_delivery_lag_seconds',
    help: "From the commit of a payment's change to the delivery of its notification (retries included).",
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60, 300, 3600, 86_400],
  });
  const backlog = metrics.reading(() => notifications.backlog(), 15_000);
  metrics.gauge({
    name: 'notification_backlog',
    help: 'Notifications not yet delivered nor failed (pending or due), in the whole database.',
    async collect() {
      const value = await backlog();
      if (value !== undefined) this.set(value);
    },
  });
  worker.observe({
    attempt(result, lagSeconds) {
      deliveries.inc({ result });
      if (lagSeconds !== undefined) lag.observe(lagSeconds);
    },
  });
}
