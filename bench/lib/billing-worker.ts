/**
 * One billing worker process of `npm run bench -- billing`: opens the database, says READY, waits
 * for GO on stdin, makes one billing run as of argv[2] and prints its summary as JSON.
 * Env: BENCH_BILLING_URL, BENCH_VAULT_KEY, BENCH_POOL_SIZE, BENCH_CONCURRENCY, BENCH_BATCH_SIZE.
 */
import { billingBenchConfig, openBenchServices } from './billing-setup.ts';

const asOf = process.argv[2]!;
const config = billingBenchConfig(process.env.BENCH_BILLING_URL!, process.env.BENCH_VAULT_KEY!, Number(process.env.BENCH_POOL_SIZE ?? 10));
const { store, services } = await openBenchServices(config);
await store.ping();
process.stdout.write('READY\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));
const cpu0 = process.cpuUsage();
const summary = await services.billing.run({ asOf, concurrency: Number(process.env.BENCH_CONCURRENCY ?? 16), batchSize: Number(process.env.BENCH_BATCH_SIZE ?? 100) });
const cpu = process.cpuUsage(cpu0);
process.stdout.write(`RESULT ${JSON.stringify({ ...summary, cpuMs: Math.round((cpu.user + cpu.system) / 1000) })}\n`);
await store.close();
process.exit(0);
