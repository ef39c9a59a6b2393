/**
 * npm run bench -- billing
 * The recurring billing worker on PostgreSQL (a throw-away database): 10,000 due profiles charged
 * by one billing run, then 10,000 more by two worker processes in parallel, each a real billing
 * run through the payment service (fees, simulator with no latency, payment records). Reports
 * charges per second (profiles charged / wall time from the start signal to the last worker's
 * end) and checks that no profile was charged twice for a bill date.
 * Targets: at least 500 charges/s with one worker; two workers faster than one; zero double charges.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { availableParallelism, loadavg } from 'node:os';
import { join } from 'node:path';
import { addDueProfiles, billingBenchConfig, openBenchServices, seedBillingPartner, throwawayDatabase } from './lib/billing-setup.ts';

const PROFILES = Number(process.env.BENCH_BILLING_PROFILES ?? 10_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);
const POOL_SIZE = Number(process.env.BENCH_POOL_SIZE ?? 20);
const ROOT = join(import.meta.dirname, '..');

interface WorkerSummary {
  claimed: number;
  charged: number;
  approved: number;
  declined: number;
  deferred: number;
  errors: number;
  durationMs: number;
  /** CPU time of the worker process during its run. */
  cpuMs: number;
}

function startWorker(url: string, vaultKey: string, asOf: string): { child: ChildProcess; ready: Promise<void>; result: Promise<WorkerSummary> } {
  const child = spawn(process.execPath, ['bench/lib/billing-worker.ts', asOf], {
    cwd: ROOT,
    env: { ...process.env, BENCH_BILLING_URL: url, BENCH_VAULT_KEY: vaultKey, BENCH_POOL_SIZE: String(POOL_SIZE), BENCH_CONCURRENCY: String(CONCURRENCY) },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  let out = '';
  let onReady!: () => void;
  const ready = new Promise<void>((r) => (onReady = r));
  const result = new Promise<WorkerSummary>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('READY\n')) onReady();
      const line = out.split('\n').find((l) => l.startsWith('RESULT '));
      if (line) resolve(JSON.parse(line.slice('RESULT '.length)));
    });
    child.once('exit', (code) => reject(new Error(`billing worker exited with ${code}: ${out}`)));
  });
  return { child, ready, result };
}

/** Starts `workers` processes, waits until each is connected, then lets them all go at once. */
async function measure(url: string, vaultKey: string, asOf: string, workers: number) {
  const procs = Array.from({ length: workers }, () => startWorker(url, vaultKey, asOf));
  await Promise.all(procs.map((p) => p.ready));
  const started = performance.now();
  for (const p of procs) p.child.stdin!.write('GO\n');
  const summaries = await Promise.all(procs.map((p) => p.result));
  const wallMs = performance.now() - started;
  const approved = summaries.reduce((n, s) => n + s.approved, 0);
  return {
    workers,
    wallMs: Math.round(wallMs),
    approved,
    chargesPerSec: Math.round((approved / wallMs) * 1000),
    perWorker: summaries.map((s) => ({
      approved: s.approved,
      declined: s.declined,
      deferred: s.deferred,
      errors: s.errors,
      durationMs: s.durationMs,
      cpuMsPerCharge: s.approved > 0 ? Number((s.cpuMs / s.approved).toFixed(2)) : null,
    })),
  };
}

export async function run(_options: { seconds: number }) {
  const db = await throwawayDatabase('billing');
  const vaultKey = randomBytes(32).toString('base64');
  try {
    const { store, services } = await openBenchServices(billingBenchConfig(db.url, vaultKey, 4));
    try {
      const seed = await seedBillingPartner(services, 100);
      // Two sets of due profiles on two bill dates, one for each measurement.
      await addDueProfiles(store, seed, PROFILES, '2026-12-01');
      await addDueProfiles(store, seed, PROFILES, '2026-12-02');
      await store.sql.exec('ANALYZE');

      const loadBefore = loadavg()[0]!;
      const one = await measure(db.url, vaultKey, '2026-12-01', 1);
      const two = await measure(db.url, vaultKey, '2026-12-02', 2);

      const [check] = await store.sql.query<{ charged: string; double_charged: string; duplicates_refused: string; payments: string }>(
        `SELECT (SELECT count(*) FROM payments WHERE recurring_profile_id IS NOT NULL AND successful) AS charged,
                (SELECT count(*) FROM (SELECT 1 FROM payments WHERE recurring_profile_id IS NOT NULL AND payment_result <> 4
                                        GROUP BY recurring_profile_id, bill_date HAVING count(*) > 1) d) AS double_charged,
                (SELECT count(*) FROM payments WHERE recurring_profile_id IS NOT NULL AND response_code = '-100') AS duplicates_refused,
                (SELECT count(*) FROM payments WHERE recurring_profile_id IS NOT NULL) AS payments`,
      );
      const [left] = await store.sql.query<{ due: string }>("SELECT count(*) AS due FROM recurring_profiles WHERE status = 'active' AND next_attempt_on <= '2026-12-02'");
      const doubleCharged = Number(check!.double_charged);
      return {
        store: 'postgres',
        // Other processes on the machine change these figures a lot: the load is part of the result.
        machine: { cpus: availableParallelism(), loadAverage1mBefore: Number(loadBefore.toFixed(2)), loadAverage1mAfter: Number(loadavg()[0]!.toFixed(2)) },
        profilesPerRun: PROFILES,
        concurrencyPerWorker: CONCURRENCY,
        poolSizePerWorker: POOL_SIZE,
        oneWorker: one,
        twoWorkers: two,
        twoToOneRatio: Number((two.chargesPerSec / one.chargesPerSec).toFixed(2)),
        profilesCharged: Number(check!.charged),
        paymentsRecorded: Number(check!.payments),
        duplicatesRefused: Number(check!.duplicates_refused),
        doubleCharges: doubleCharged,
        profilesLeftDue: Number(left!.due),
        target: 'oneWorker.chargesPerSec >= 500, twoWorkers faster than one, doubleCharges = 0',
        meetsTarget: one.chargesPerSec >= 500 && two.chargesPerSec > one.chargesPerSec && doubleCharged === 0 && Number(left!.due) === 0,
      };
    } finally {
      await store.close();
    }
  } finally {
    await db.drop();
  }
}
