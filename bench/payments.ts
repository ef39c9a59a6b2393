/**
 * npm run bench -- payments
 * POST /api/payment (approved card, simulator latency 0, 32 connections) against a baseline route
 * that performs one INSERT into the same database, in one run, on PostgreSQL (a throw-away
 * database) and then on PGlite. Targets on PostgreSQL: payment throughput >= 40 % of the
 * baseline's, p99 <= 50 ms, server RSS < 300 MB. On PostgreSQL it also replays a payment's two
 * statements and the baseline's INSERT straight against the database (`writesAlone`): the
 * ceiling the writes set, whatever the service does.
 */
import { randomUUID } from 'node:crypto';
import { withThrowawayDatabase } from './lib/database.ts';
import { type BenchServer, load, startServer } from './lib/harness.ts';
import { measureWritesAlone } from './lib/payment-writes-alone.ts';

const CONNECTIONS = 32;

export function paymentBody(): string {
  return JSON.stringify({
    CardNum: '4242424242424242',
    ExpMonth: '12',
    ExpYear: '35',
    CVNum: '123',
    NameOnCard: 'Bench Payer',
    Email: 'payer@example.org',
    IpAddress: '203.0.113.9',
    Zip: '12345',
    Street: '1 Main St',
    TranId: `bench-${randomUUID()}`,
    Transactions: [{ TransactionSourceGroupId: '1', Amount: '25.00', PayFee: true }],
  });
}

async function measure(server: BenchServer, seconds: number) {
  const headers = { AccessToken: server.info.token, 'content-type': 'application/json' };
  // A fresh TranId per request: every payment passes the duplicate check's unique index.
  const payment = {
    url: `${server.url}/api/payment`,
    connections: CONNECTIONS,
    requests: [{ method: 'POST' as const, path: '/api/payment', headers, setupRequest: (req: object) => ({ ...req, body: paymentBody() }) }],
  };
  const baseline = { url: `${server.url}/api/probe/insert`, method: 'POST' as const, headers, connections: CONNECTIONS, body: '{"n":1}' };
  const insertUpdate = { ...baseline, url: `${server.url}/api/probe/insert-update` };
  await load({ ...baseline, seconds: 2 });
  await load({ ...payment, seconds: 2 });
  const base = await load({ ...baseline, seconds });
  let peakRss = server.rssMb();
  const timer = setInterval(() => (peakRss = Math.max(peakRss, server.rssMb())), 250);
  const pay = await load({ ...payment, seconds });
  clearInterval(timer);
  // Not a target: the floor a payment's two writes (pending row, then the processor's answer) set.
  const floor = await load({ ...insertUpdate, seconds });
  const ratio = pay.requestsPerSec / base.requestsPerSec;
  return {
    store: server.info.store,
    connections: CONNECTIONS,
    baselineInsert: base,
    payment: pay,
    paymentToBaselineRatio: Number(ratio.toFixed(3)),
    insertThenUpdate: floor,
    insertThenUpdateToBaselineRatio: Number((floor.requestsPerSec / base.requestsPerSec).toFixed(3)),
    paymentToInsertThenUpdateRatio: Number((pay.requestsPerSec / floor.requestsPerSec).toFixed(3)),
    paymentP99Ms: pay.latencyP99Ms,
    serverPeakRssMb: Math.round(peakRss),
    meetsTargets: { throughput: ratio >= 0.4, p99: pay.latencyP99Ms <= 50, rss: peakRss < 300 },
  };
}

export async function run(options: { seconds: number }) {
  const postgres = await withThrowawayDatabase('payments', async (url) => {
    const server = await startServer({ DATABASE_URL: url, DATABASE_POOL_SIZE: '20', VAULT_KEY: Buffer.alloc(32, 7).toString('base64') });
    let measured;
    try {
      measured = await measure(server, options.seconds);
    } finally {
      await server.stop();
    }
    // Not a target: the same writes without HTTP or service code, with the server stopped.
    return { ...measured, writesAlone: await measureWritesAlone(url, { clients: CONNECTIONS, seconds: options.seconds }) };
  });
  const server = await startServer({ DATABASE_URL: '', VAULT_KEY: Buffer.alloc(32, 7).toString('base64') });
  let pglite;
  try {
    pglite = await measure(server, options.seconds);
  } finally {
    await server.stop();
  }
  return { target: 'PostgreSQL: payment >= 40 % of baseline, p99 <= 50 ms, RSS < 300 MB', postgres, pglite };
}
