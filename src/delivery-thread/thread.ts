import { Worker } from 'node:worker_threads';
import type { BackgroundJob } from '../platform/jobs.ts';
import type { DeliveryObserver } from '../modules/notifications/delivery-worker.ts';

/** What the thread reports, at most every 100 ms: its attempts since the last report (metrics). */
export interface DeliveryThreadReport {
  attempts: ['delivered' | 'failed' | 'retried', number | null][];
}

/** What the thread is started with (its configuration it reads from the environment, as the server did). */
export interface DeliveryThreadData {
  prettyLogs: boolean;
  colorize: boolean;
}

/**
 * The server's notification delivery on PostgreSQL (NOTIFICATION_WORKER=on): the worker of
 * delivery-worker.ts on a thread of its own, with its own connections, so that signing, posting
 * and recording deliveries take no time from the event loop that answers payments (on two cores
 * the in-loop worker cost payments a fifth of their throughput: docs/decisions.md). PGlite, one
 * connection in this thread, keeps the worker in the event loop.
 *
 * As a background job: a run starts the thread and lasts until it ends; a thread that fails is
 * started again by the job runner. The thread's attempts reach this process's metrics through
 * `observe`; `wake` passes a redelivery's wake-up on.
 */
export class DeliveryThread {
  readonly #data: DeliveryThreadData;
  #worker: Worker | undefined;
  #observer: DeliveryObserver | undefined;

  constructor(data: DeliveryThreadData) {
    this.#data = data;
  }

  observe(observer: DeliveryObserver): void {
    this.#observer = observer;
  }

  wake(): void {
    this.#worker?.postMessage('wake');
  }

  job(): BackgroundJob {
    return {
      name: 'notification delivery',
      everyMs: 1_000,
      run: () =>
        new Promise<void>((resolve, reject) => {
          const worker = new Worker(new URL('./entry.ts', import.meta.url), { workerData: this.#data });
          this.#worker = worker;
          worker.on('message', (report: DeliveryThreadReport) => {
            for (const [result, lagSeconds] of report.attempts) this.#observer?.attempt(result, lagSeconds ?? undefined);
          });
          worker.on('error', reject);
          worker.on('exit', (code) => {
            if (this.#worker === worker) this.#worker = undefined;
            if (code === 0) resolve();
            else reject(new Error(`the notification delivery thread exited with code ${code}`));
          });
        }),
      stop: () => this.#worker?.postMessage('stop'),
    };
  }
}
