import type { BackgroundJob } from '../../platform/jobs.ts';
import type { BillingService } from './billing-service.ts';

/**
 * The billing worker as a server process runs it (BILLING_WORKER=on, the default): every
 * `everyMs` it bills what is due today. Any number of server processes may run it on one
 * PostgreSQL database; `npx payments billing run` does the same once, for operators.
 */
export function billingJob(billing: BillingService, everyMs: number): BackgroundJob {
  // On shutdown a run in progress finishes the batch in hand and stops claiming: the server's
  // graceful stop waits for it, and what is left is due for the next run (or another process).
  const stopping = new AbortController();
  return {
    name: 'recurring billing',
    everyMs,
    // "Today" is this process's clock: a wrong one would charge the bill dates up to that day.
    needsAgreedClock: true,
    needsConfirmedDatabase: true,
    run: () => billing.run({ signal: stopping.signal }),
    stop: () => stopping.abort(),
  };
}
