/**
 * npm run bench -- <name>... [--seconds N]
 * Runs the named benchmarks (all when none is named), prints their figures and writes them to
 * bench/results/<name>.json. Benchmarks measure; tests assert behaviour.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const BENCHES: Record<string, () => Promise<{ run(options: { seconds: number }): Promise<unknown> }>> = {
  charities: () => import('./charities.ts'),
  session: () => import('./session.ts'),
  paylink: () => import('./paylink.ts'),
  payments: () => import('./payments.ts'),
  metrics: () => import('./metrics.ts'),
  'payment-writes': () => import('./payment-writes.ts'),
  fees: () => import('./fees.ts'),
  gateway: () => import('./gateway.ts'),
  lifecycle: () => import('./lifecycle.ts'),
  billing: () => import('./billing.ts'),
  'simulator-ledger': () => import('./simulator-ledger.ts'),
  reports: () => import('./reports.ts'),
  notifications: () => import('./notifications.ts'),
};

const { values, positionals } = parseArgs({ allowPositionals: true, options: { seconds: { type: 'string', default: '10' } } });
const names = positionals.length ? positionals : Object.keys(BENCHES);
const unknown = names.filter((n) => !BENCHES[n]);
if (unknown.length) {
  process.stderr.write(`unknown benchmark(s): ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}\n`);
  process.exit(2);
}
const dir = join(import.meta.dirname, 'results');
mkdirSync(dir, { recursive: true });
for (const name of names) {
  process.stdout.write(`== ${name} ==\n`);
  const bench = await BENCHES[name]!();
  const result = { name, at: new Date().toISOString(), node: process.version, ...(await bench.run({ seconds: Number(values.seconds) })) as object };
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(result, null, 2) + '\n');
  process.stdout.write(JSON.stringify(result, null, 2) + '\n');
}
