/**
 * npm run bench -- simulator-ledger [--seconds N]
 * What the simulator's ledger (issue 30: it records each sale before answering, so that its
 * look-ups are true across processes) costs a payment: POST /api/payment (approved card, 32
 * connections) against two servers at once, one with the ledger and one without
 * (BENCH_SIMULATOR_LEDGER=off), on PostgreSQL (one throw-away database for both) and then on
 * PGlite (each its own). The load goes to one server at a time, alternately, in rounds of N/2
 * seconds (six rounds each, the order swapped every round), so that the noise of a shared machine
 * falls on both alike; the figures are the medians of the rounds, and the ratio the median of the
 * rounds' ratios (each round's two halves ran next to each other). Target: the ledger costs as little of a payment's
 * throughput as can be (no fixed number; docs/decisions.md, "The simulator's ledger").
 */
import { withThrowawayDatabase } from './lib/database.ts';
import { type BenchServer, type LoadResult, load, startServer } from './lib/harness.ts';
import { paymentBody } from './payments.ts';

const CONNECTIONS = 32;
const ROUNDS = 6;
const VAULT_KEY = Buffer.alloc(32, 7).toString('base64');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function payments(server: BenchServer, seconds: number): Promise<LoadResult> {
  const headers = { AccessToken: server.info.token, 'content-type': 'application/json' };
  return load({
    url: `${server.url}/api/payment`,
    connections: CONNECTIONS,
    seconds,
    requests: [{ method: 'POST' as const, path: '/api/payment', headers, setupRequest: (req: object) => ({ ...req, body: paymentBody() }) }],
  });
}

async function compare(env: Record<string, string>, seconds: number) {
  const withLedger = await startServer({ ...env });
  const withoutLedger = await startServer({ ...env, BENCH_SIMULATOR_LEDGER: 'off' });
  try {
    await payments(withLedger, 2);
    await payments(withoutLedger, 2);
    const on: LoadResult[] = [];
    const off: LoadResult[] = [];
    const round = Math.max(2, Math.round(seconds / 2));
    for (let i = 0; i < ROUNDS; i++) {
      // Alternating which goes first, so that neither always follows the other's writes.
      if (i % 2 === 0) {
        on.push(await payments(withLedger, round));
        off.push(await payments(withoutLedger, round));
      } else {
        off.push(await payments(withoutLedger, round));
        on.push(await payments(withLedger, round));
      }
    }
    const onRate = median(on.map((r) => r.requestsPerSec));
    const offRate = median(off.map((r) => r.requestsPerSec));
    const ratios = on.map((r, i) => r.requestsPerSec / off[i]!.requestsPerSec);
    return {
      connections: CONNECTIONS,
      roundSeconds: round,
      withLedger: { paymentsPerSec: onRate, p99Ms: median(on.map((r) => r.latencyP99Ms)), rounds: on.map((r) => r.requestsPerSec), non2xx: on.reduce((n, r) => n + r.non2xx, 0) },
      withoutLedger: { paymentsPerSec: offRate, p99Ms: median(off.map((r) => r.latencyP99Ms)), rounds: off.map((r) => r.requestsPerSec), non2xx: off.reduce((n, r) => n + r.non2xx, 0) },
      roundRatios: ratios.map((r) => Number(r.toFixed(3))),
      ledgerToNoLedgerRatio: Number(median(ratios).toFixed(3)),
    };
  } finally {
    await withLedger.stop();
    await withoutLedger.stop();
  }
}

export async function run(options: { seconds: number }) {
  const postgres = await withThrowawayDatabase('ledger', (url) => compare({ DATABASE_URL: url, DATABASE_POOL_SIZE: '10', VAULT_KEY }, options.seconds));
  const pglite = await compare({ DATABASE_URL: '', VAULT_KEY }, options.seconds);
  return { target: 'the ledger costs as little as can be: payments/s with it over without, same run', postgres, pglite };
}
