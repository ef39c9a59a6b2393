import { parentPort, workerData } from 'node:worker_threads';
import { loadConfig } from '../config.ts';
import { createServices } from '../composition.ts';
import { systemClock } from '../platform/clock.ts';
import { cryptoIds } from '../platform/ids.ts';
import { openPostgres } from '../platform/database/database.ts';
import { createLogger, prettyDestination, settleLogs, stdoutDestination } from '../platform/logging.ts';
import { notificationJob } from '../modules/notifications/delivery-job.ts';
import type { DeliveryThreadData, DeliveryThreadReport } from './thread.ts';

// The notification delivery thread of a server (thread.ts): the server's configuration (the
// environment is the server's), connections of its own, and the delivery job until told to stop.

/** Its pool: the claims and records of one worker (LISTEN has a connection of its own). */
const POOL_SIZE = 2;
/** How often the attempts made are reported to the server's metrics. */
const REPORT_EVERY_MS = 100;

const port = parentPort!;
const data = workerData as DeliveryThreadData;
let stopped = false;
let stop: (() => void) | undefined;
let wake: (() => void) | undefined;
// Told before the job has started, it does not start.
port.on('message', (message: unknown) => {
  if (message === 'stop') {
    stopped = true;
    stop?.();
  } else if (message === 'wake') wake?.();
});
// The thread ends when its job has: the port alone does not hold it.
port.unref();

const config = loadConfig();
const store = openPostgres(config.databaseUrl!, POOL_SIZE);
const log = createLogger(config.logLevel, data.prettyLogs ? await prettyDestination({ colorize: data.colorize }) : stdoutDestination());
let attempts: DeliveryThreadReport['attempts'] = [];
const report = () => {
  if (attempts.length === 0) return;
  port.postMessage({ attempts } satisfies DeliveryThreadReport);
  attempts = [];
};
const timer = setInterval(report, REPORT_EVERY_MS);
try {
  const { notificationWorker } = createServices({ store, clock: systemClock, ids: cryptoIds, config, log });
  notificationWorker.observe({ attempt: (result, lagSeconds) => void attempts.push([result, lagSeconds ?? null]) });
  const job = notificationJob(notificationWorker, store);
  stop = () => job.stop?.();
  wake = () => notificationWorker.wake();
  if (!stopped) await job.run();
} finally {
  clearInterval(timer);
  report();
  await store.close();
  await settleLogs(1_000);
}
