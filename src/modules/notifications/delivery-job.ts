import type { BackgroundJob } from '../../platform/jobs.ts';
import type { Store } from '../../platform/database/database.ts';
import type { NotificationDeliveryWorker } from './delivery-worker.ts';

/** The channel the outbox triggers NOTIFY (migration 0024). */
export const NOTIFY_CHANNEL = 'payments_notifications';

/**
 * The delivery worker as a server process runs it (NOTIFICATION_WORKER=on, the default): one run
 * that lasts until shutdown, woken by the outbox's NOTIFY on PostgreSQL (a delivery follows its
 * commit within milliseconds) and polling besides. If the run fails, the job runner starts it
 * again after `everyMs`.
 */
export function notificationJob(worker: NotificationDeliveryWorker, store: Store): BackgroundJob {
  let stopping = new AbortController();
  return {
    name: 'notification delivery',
    everyMs: 1_000,
    run: async () => {
      if (stopping.signal.aborted) stopping = new AbortController();
      const listener = store.listen?.(NOTIFY_CHANNEL, () => worker.wake());
      try {
        await worker.run(stopping.signal);
      } finally {
        await listener?.close();
      }
    },
    stop: () => stopping.abort(),
  };
}
