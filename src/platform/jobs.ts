import type { Logger } from './logging.ts';

export interface BackgroundJob {
  name: string;
  /** How often the job runs, in milliseconds. */
  everyMs: number;
  run(): Promise<unknown>;
  /** Asks a run in progress to wind up early (server shutdown); `stop` then waits for it. */
  stop?(): void;
  /**
   * The job charges, settles or deletes by this process's clock: it is skipped while that clock is
   * more than clockSkewLimitMs from the database's (see `startBackgroundJobs`).
   */
  needsAgreedClock?: boolean;
  /**
   * The job charges or settles: it waits while the database is a restored or copied one that no
   * operator has confirmed (src/modules/operations/database-identity-service.ts).
   */
  needsConfirmedDatabase?: boolean;
}

/**
 * A purge in statements of at most `batch` rows each (short locks, bounded WAL per statement):
 * `deleteUpTo` deletes up to its limit and says how many; repeated until one deletes fewer.
 * Returns how many in all.
 */
export async function deleteInBatches(deleteUpTo: (limit: number) => Promise<number>, batch: number): Promise<number> {
  let total = 0;
  for (;;) {
    const n = await deleteUpTo(batch);
    total += n;
    if (n < batch) return total;
  }
}

/** What `startBackgroundJobs` checks before a run of a job that asks for it. */
export interface JobChecks {
  /** This process's clock minus the database's; null when one measurement took too long to tell. */
  clockSkewMs?: () => Promise<number | null>;
  /** How far apart the two clocks may be for the jobs that need them to agree. */
  clockSkewLimitMs?: number;
  /** False while the database is a restored or copied one not yet confirmed. */
  databaseConfirmed?: () => Promise<boolean>;
}

/** While a job is skipped by a check, it says so at most this often. */
const SKIP_LOG_EVERY_MS = 10 * 60_000;

/**
 * Runs each job on its interval, one run at a time per job; a failing run is logged and the job
 * carries on. `stop` waits for runs in progress, and no run starts once it is called. Before each
 * run of a job that `needsConfirmedDatabase`, `checks.databaseConfirmed` is asked, and of one that
 * `needsAgreedClock`, `checks.clockSkewMs` is measured: while the database is unconfirmed, or the
 * clocks are more than clockSkewLimitMs apart (or could not be compared), the run is skipped,
 * with an error in the log at the first skip and every SKIP_LOG_EVERY_MS after, until that ends
 * (then an info line).
 */
export function startBackgroundJobs(jobs: BackgroundJob[], log: Logger, checks: JobChecks = {}): { stop(): Promise<void> } {
  const { clockSkewMs, databaseConfirmed, clockSkewLimitMs = 60_000 } = checks;
  const running = new Set<Promise<unknown>>();
  let stopping = false;
  const timers = jobs.map((job) => {
    let busy = false;
    let skippedSince: number | undefined;
    let skipLoggedAt = 0;
    const skip = (say: () => void) => {
      const now = performance.now();
      if (skippedSince === undefined || now - skipLoggedAt >= SKIP_LOG_EVERY_MS) {
        skipLoggedAt = now;
        say();
      }
      skippedSince ??= now;
    };
    const runOnce = async () => {
      // A check that fails (the database unreachable) skips too: the job could not be sure.
      const confirmed = job.needsConfirmedDatabase && databaseConfirmed ? await databaseConfirmed().catch(() => undefined) : true;
      if (confirmed === undefined) {
        skip(() => log.warn({ job: job.name }, 'could not check whether this database was restored or copied: the run is skipped'));
        return;
      }
      if (!confirmed) {
        skip(() =>
          log.error(
            { job: job.name },
            'this database was restored or copied from another and no operator has confirmed it: the job waits. Stop the server of the old database, reconcile with the processor what happened after the backup, then run payments database confirm-move',
          ),
        );
        return;
      }
      if (job.needsAgreedClock && clockSkewMs) {
        const skew = await clockSkewMs().catch(() => null);
        if (skew === null || Math.abs(skew) > clockSkewLimitMs) {
          skip(() => {
            if (skew === null) log.warn({ job: job.name }, "could not compare this server's clock with the database server's (the database failed or answered too slowly): the run is skipped");
            else
              log.error(
                { job: job.name, clockAheadOfDatabaseSeconds: Math.round(skew / 1000) },
                `this server's clock is more than ${clockSkewLimitMs / 1000} s from the database server's: the job's runs are skipped until they agree (set both by NTP)`,
              );
          });
          return;
        }
      }
      if (skippedSince !== undefined) log.info({ job: job.name }, 'the job runs again');
      skippedSince = undefined;
      // stop() may have come while the checks ran.
      if (stopping) return;
      return job.run();
    };
    const timer = setInterval(() => {
      if (busy || stopping) return;
      busy = true;
      const run = runOnce()
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
      stopping = true;
      for (const t of timers) clearInterval(t);
      for (const job of jobs) job.stop?.();
      await Promise.allSettled([...running]);
    },
  };
}
