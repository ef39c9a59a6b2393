/**
 * npm run bench -- metrics
 * POST /api/payment (approved card, simulator latency 0, 32 connections) on a server with metrics
 * off (METRICS_PORT=off) against one with metrics on (every service decorator, the HTTP hook, the
 * pool and process metrics), scraped every second while loaded (Prometheus scrapes every 15 s or
 * so: this is harsher), in one run, on PostgreSQL (a throw-away database both servers share) and
 * then on PGlite (one in-memory database each). The two servers run side by side and are loaded
 * in turns, alternating which goes first, so that drift of a shared machine falls on both alike.
 * Target: with metrics on, at least 97 % of the payment throughput with metrics off. The servers'
 * own CPU time per payment is given too: on a machine other work shares, it moves far less than
 * throughput does.
 */
import { readFileSync } from 'node:fs';
import { withThrowawayDatabase } from './lib/database.ts';
import { type BenchServer, type LoadResult, load, startServer } from './lib/harness.ts';
import { paymentBody } from './payments.ts';

const CONNECTIONS = 32;
const ROUNDS = 10;
const TARGET = 0.97;
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

/** Scrapes the server's /metrics every second while `during` runs; returns how many scrapes answered 200 and the slowest. */
async function scraped<T>(server: BenchServer, during: Promise<T>): Promise<{ result: T; scrapes: number; slowestScrapeMs: number }> {
  const url = `http://127.0.0.1:${server.info.metricsPort as number}/metrics`;
  let scrapes = 0;
  let slowest = 0;
  let running = true;
  const scraper = (async () => {
    while (running) {
      const started = performance.now();
      const res = await fetch(url);
      await res.text();
      if (res.status === 200) scrapes++;
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 1_000));
    }
  })();
  const result = await during;
  running = false;
  await scraper;
  return { result, scrapes, slowestScrapeMs: Math.round(slowest) };
}

/** CPU seconds the server process has used (user and system), from /proc. */
function cpuSeconds(server: BenchServer): number {
  const fields = readFileSync(`/proc/${server.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  // utime and stime, fields 14 and 15 of the line (11 and 12 after the command), in clock ticks of 1/100 s.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** A load, with the server's CPU time it took. */
async function measured(server: BenchServer, run: () => Promise<LoadResult>): Promise<LoadResult & { cpuSeconds: number }> {
  const before = cpuSeconds(server);
  const result = await run();
  return { ...result, cpuSeconds: cpuSeconds(server) - before };
}

function total(results: (LoadResult & { cpuSeconds: number })[]) {
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

async function compare(off: BenchServer, on: BenchServer, seconds: number) {
  const each = Math.max(3, Math.round(seconds / 3));
  await payments(off, 2);
  await payments(on, 2);
  const offRuns: (LoadResult & { cpuSeconds: number })[] = [];
  const onRuns: (LoadResult & { cpuSeconds: number })[] = [];
  let scrapes = 0;
  let slowestScrapeMs = 0;
  const measureOff = async () => offRuns.push(await measured(off, () => payments(off, each)));
  const measureOn = async () => {
    const run = await scraped(on, measured(on, () => payments(on, each)));
    onRuns.push(run.result);
    scrapes += run.scrapes;
    slowestScrapeMs = Math.max(slowestScrapeMs, run.slowestScrapeMs);
  };
  for (let round = 0; round < ROUNDS; round++) {
    if (round % 2 === 0) {
      await measureOff();
      await measureOn();
    } else {
      await measureOn();
      await measureOff();
    }
  }
  const rounds = onRuns.map((r, i) => Number((r.requests / offRuns[i]!.requests).toFixed(3)));
  const metricsOff = total(offRuns);
  const metricsOn = total(onRuns);
  const ratio = metricsOn.requests / metricsOff.requests;
  return {
    store: off.info.store,
    connections: CONNECTIONS,
    rounds: ROUNDS,
    secondsEach: each,
    metricsOff,
    metricsOn,
    scrapes,
    slowestScrapeMs,
    onToOffThroughputRatio: Number(ratio.toFixed(3)),
    // Throughput as CPU would allow it: the off server's CPU time per payment over the on server's.
    offToOnCpuPerPaymentRatio: Number((metricsOff.serverCpuMsPerPayment / metricsOn.serverCpuMsPerPayment).toFixed(3)),
    perRoundRatios: rounds,
    // Half the rounds lower, half higher: one round another program's burst spoiled moves it little.
    medianRoundRatio: rounds.toSorted((a, b) => a - b)[Math.floor(rounds.length / 2)],
    meetsTarget: ratio >= TARGET,
  };
}

async function pair(env: Record<string, string>, seconds: number) {
  const off = await startServer({ ...env, VAULT_KEY, METRICS_PORT: 'off' });
  let on: BenchServer | undefined;
  try {
    on = await startServer({ ...env, VAULT_KEY, METRICS_PORT: '0' });
    return await compare(off, on, seconds);
  } finally {
    await off.stop();
    await on?.stop();
  }
}

export async function run(options: { seconds: number }) {
  const postgres = await withThrowawayDatabase('metrics', (url) => pair({ DATABASE_URL: url, DATABASE_POOL_SIZE: '20' }, options.seconds));
  const pglite = await pair({ DATABASE_URL: '' }, options.seconds);
  return { target: `payments with metrics on (scraped every second) >= ${TARGET * 100} % of the throughput with metrics off`, postgres, pglite };
}
