/**
 * npm run bench -- metrics
 * POST /api/payment (approved card, simulator latency 0) on a server with metrics off
 * (METRICS_PORT=off) against one with metrics on (every service decorator, the HTTP hook, the pool
 * and process metrics), scraped every 5 s while loaded (Prometheus's default is a minute, 15 s is
 * a common choice: this is harsher), in one run, on PostgreSQL (a throw-away database both servers share) and then
 * on PGlite (one in-memory database each). Three servers are loaded at the same time, 12
 * connections each, in rounds: two with metrics off and one with them on. Whatever else the
 * machine runs weighs on all three alike, and a server that costs more per payment completes
 * fewer; the two without metrics give the noise of the measure itself (their ratio would be 1 on
 * a quiet machine). Target: with metrics on, at least 97 % of the payment throughput with metrics
 * off (the mean of the two). The servers' own CPU time per payment is given too.
 */
import { readFileSync } from 'node:fs';
import { withThrowawayDatabase } from './lib/database.ts';
import { type BenchServer, type LoadResult, load, startServer } from './lib/harness.ts';
import { paymentBody } from './payments.ts';

const CONNECTIONS = 12;
const ROUNDS = 8;
const TARGET = 0.97;
const SCRAPE_EVERY_MS = 5_000;
const VAULT_KEY = Buffer.alloc(32, 7).toString('base64');

function payments(server: BenchServer, seconds: number): Promise<LoadResult> {
  const headers = { AccessToken: server.info.token, 'content-type': 'application/json' };
  return load({
    url: `${server.url}/api/payment`,
    connections: CONNECTIONS,
    seconds,
    requests: [{ method: 'POST' as const, path: '/api/payment', headers, setupRequest: (req: object) => ({ ...req, body: paymentBody() }) }],
  });
}

/** Scrapes the server's /metrics every SCRAPE_EVERY_MS while `during` runs; returns how many scrapes answered 200 and the slowest. */
async function scraped<T>(server: BenchServer, during: Promise<T>): Promise<{ result: T; scrapes: number; slowestScrapeMs: number }> {
  const url = `http://127.0.0.1:${server.info.metricsPort as number}/metrics`;
  let scrapes = 0;
  let slowest = 0;
  let stop = () => {};
  const stopped = new Promise<void>((resolve) => (stop = resolve));
  let running = true;
  const scraper = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(url);
      await res.text();
      if (res.status === 200) scrapes++;
      slowest = Math.max(slowest, performance.now() - started);
      await Promise.race([new Promise((resolve) => setTimeout(resolve, SCRAPE_EVERY_MS).unref()), stopped]);
    }
  })();
  const result = await during;
  running = false;
  stop();
  await scraper;
  return { result, scrapes, slowestScrapeMs: Math.round(slowest) };
}

/** CPU seconds the server process has used (user and system), from /proc. */
function cpuSeconds(server: BenchServer): number {
  const fields = readFileSync(`/proc/${server.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of the line (11 and 12 after the command), in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

type Measured = LoadResult & { cpuSeconds: number };

/** A load, with the server's CPU time it took. */
async function measured(server: BenchServer, run: () => Promise<LoadResult>): Promise<Measured> {
  const before = cpuSeconds(server);
  const result = await run();
  return { ...result, cpuSeconds: cpuSeconds(server) - before };
}

function total(results: Measured[]) {
  const requests = results.reduce((n, r) => n + r.requests, 0);
  return {
    requests,
    requestsPerSec: Math.round(results.reduce((n, r) => n + r.requestsPerSec, 0) / results.length),
    worstP99Ms: Math.max(...results.map((r) => r.latencyP99Ms)),
    non2xx: results.reduce((n, r) => n + r.non2xx, 0),
    errors: results.reduce((n, r) => n + r.errors, 0),
    serverCpuMsPerPayment: Number(((results.reduce((n, r) => n + r.cpuSeconds, 0) * 1000) / requests).toFixed(3)),
  };
}

async function compare(off: BenchServer, control: BenchServer, on: BenchServer, seconds: number) {
  const each = Math.max(5, Math.round(seconds / 2));
  await Promise.all([payments(off, 3), payments(control, 3), payments(on, 3)]);
  const offRuns: Measured[] = [];
  const controlRuns: Measured[] = [];
  const onRuns: Measured[] = [];
  let scrapes = 0;
  let slowestScrapeMs = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const [offRun, controlRun, onRun] = await Promise.all([
      measured(off, () => payments(off, each)),
      measured(control, () => payments(control, each)),
      scraped(on, measured(on, () => payments(on, each))),
    ]);
    offRuns.push(offRun);
    controlRuns.push(controlRun);
    onRuns.push(onRun.result);
    scrapes += onRun.scrapes;
    slowestScrapeMs = Math.max(slowestScrapeMs, onRun.slowestScrapeMs);
  }
  const metricsOff = total([...offRuns, ...controlRuns]);
  const metricsOn = total(onRuns);
  // Per server: the two off servers' mean is what the on server is compared with.
  const ratio = metricsOn.requests / (metricsOff.requests / 2);
  const controlRatio = total(controlRuns).requests / total(offRuns).requests;
  return {
    store: off.info.store,
    connectionsEach: CONNECTIONS,
    rounds: ROUNDS,
    secondsEach: each,
    metricsOff,
    metricsOn,
    scrapes,
    slowestScrapeMs,
    onToOffThroughputRatio: Number(ratio.toFixed(3)),
    perRoundRatios: onRuns.map((r, i) => Number((r.requests / ((offRuns[i]!.requests + controlRuns[i]!.requests) / 2)).toFixed(3))),
    // The two servers without metrics against each other: how far the measure itself strays.
    offToOffControlRatio: Number(controlRatio.toFixed(3)),
    // Throughput as CPU would allow it: the off servers' CPU time per payment over the on server's.
    offToOnCpuPerPaymentRatio: Number((metricsOff.serverCpuMsPerPayment / metricsOn.serverCpuMsPerPayment).toFixed(3)),
    meetsTarget: ratio >= TARGET,
  };
}

async function trio(env: Record<string, string>, seconds: number) {
  const started: BenchServer[] = [];
  try {
    for (const metrics of ['off', 'off', '0']) started.push(await startServer({ ...env, VAULT_KEY, METRICS_PORT: metrics }));
    return await compare(started[0]!, started[1]!, started[2]!, seconds);
  } finally {
    for (const server of started) await server.stop();
  }
}

export async function run(options: { seconds: number }) {
  const postgres = await withThrowawayDatabase('metrics', (url) => trio({ DATABASE_URL: url, DATABASE_POOL_SIZE: '20' }, options.seconds));
  const pglite = await trio({ DATABASE_URL: '' }, options.seconds);
  return { target: `payments with metrics on (scraped every ${SCRAPE_EVERY_MS / 1000} s) >= ${TARGET * 100} % of the throughput with metrics off`, postgres, pglite };
}
