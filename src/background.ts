import type { FastifyBaseLogger } from 'fastify';
import { billingJob } from './billing/worker.ts';
import { CLOCK_SKEW_LIMIT_MS } from './services/clock-agreement.ts';
import type { Services } from './services/index.ts';

export interface BackgroundJob {
  name: string;
  /** How often the job runs, in milliseconds. */
  everyMs: number;
  run(): Promise<unknown>;
  /** Asks a run in progress to wind up early (server shutdown); `stop` then waits for it. */
  stop?(): void;
  /**
   * The job charges or settles by this process's clock: it is skipped while that clock is more
   * than CLOCK_SKEW_LIMIT_MS from the database's (see `startBackgroundJobs`).
   */
  needsAgreedClock?: boolean;
}

/** The jobs a server process runs beside the HTTP server. */
export function backgroundJobs(services: Services): BackgroundJob[] {
  return [
    { name: 'purge expired access tokens', everyMs: 60 * 60 * 1000, run: () => services.sessions.purgeExpired() },
    { name: 'purge expired gateway sessions', everyMs: 60 * 60 * 1000, run: () => services.gatewaySessions.purgeExpired() },
    { name: 'purge old pay link responseTokens', everyMs: 60 * 60 * 1000, run: () => services.payLinkResults.prune() },
    // Closes the settlement batch once the daily cut-off (SETTLEMENT_CUTOFF) has passed on the
    // injected clock; every process runs it, the batch of a cut-off is closed once.
    { name: 'settlement', everyMs: 60 * 1000, needsAgreedClock: true, run: () => services.settlement.settleIfCutoffPassed() },
    // Recurring billing (BILLING_WORKER): any number of processes may run it; each bill date is charged once.
    ...(services.config.billingWorker ? [billingJob(services)] : []),
  ];
}

/**
 * Runs each job on its interval, one run at a time per job; a failing run is logged and the job
 * carries on. `stop` waits for runs in progress. Before each run of a job that `needsAgreedClock`,
 * `clockSkewMs` (this process's clock minus the database's) is measured: beyond
 * CLOCK_SKEW_LIMIT_MS the run is skipped with an error in the log, every time, until the clocks
 * agree again.
 */
export function startBackgroundJobs(
  jobs: BackgroundJob[],
  log: FastifyBaseLogger,
  clockSkewMs?: () => Promise<number>,
): { stop(): Promise<void> } {
  const running = new Set<Promise<unknown>>();
  const timers = jobs.map((job) => {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      const run = runUnlessClockDisagrees(job, log, clockSkewMs)
        .catch((err) => log.error({ err, job: job.name }, 'background job failed'))
        .finally(() => {
          busy = false;
          running.delete(run);
        });
      running.add(run);
    }, job.everyMs);
    timer.unref();
    return timer;
  });
  return {
    async stop() {
      for (const t of timers) clearInterval(t);
      for (const job of jobs) job.stop?.();
      await Promise.allSettled([...running]);
    },
  };
}

async function runUnlessClockDisagrees(job: BackgroundJob, log: FastifyBaseLogger, clockSkewMs?: () => Promise<number>): Promise<unknown> {
  if (job.needsAgreedClock && clockSkewMs) {
    const skew = await clockSkewMs();
    if (Math.abs(skew) > CLOCK_SKEW_LIMIT_MS) {
      log.error(
        { job: job.name, clockAheadOfDatabaseSeconds: Math.round(skew / 1000) },
        `this server's clock is more than ${CLOCK_SKEW_LIMIT_MS / 1000} s from the database server's: the run is skipped until they agree (set both by NTP)`,
      );
      return;
    }
  }
  return job.run();
}
