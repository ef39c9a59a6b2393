/**
 * npm run bench -- notifications [--seconds N]
 * Payment notifications (issue 27) on PostgreSQL, through the wire API only: each server is the
 * service as `npm start` runs it (its own delivery worker, NOTIFICATION_WORKER), on a throw-away
 * database seeded with one partner; the partner's URL is set by PUT /api/notificationConfig and
 * points at a receiver in this process (bench/lib/notification-receiver.ts), hence
 * NOTIFICATION_ALLOW_PRIVATE=on and plain http (NODE_ENV=development).
 *
 * 1. overhead: POST /api/payment of a partner with one notification URL (a receiver answering 200
 *    at once) against a partner with none. Three servers, each on its own database (a server's
 *    worker delivers only its own partner's rows, in its own process), loaded at the same time in
 *    rounds as bench/metrics.ts does: two without a URL, one with. Target: >= 85 % of the
 *    throughput. The server CPU time per payment is given too, and how much of the notifications
 *    were delivered while the load ran (a worker that fell behind would hide its cost).
 *    overheadDeliveryProcess: the same, the server of the partner with a URL without its worker
 *    (NOTIFICATION_WORKER=off) and `payments notifications deliver --follow` delivering, on the
 *    same machine: the deployment that keeps delivery's CPU out of the payments' processes.
 * 2. rate: a backlog made by a server with NOTIFICATION_WORKER=off, then delivered by a server with
 *    the worker on: notifications per second from the first arrival to the last. Target: >= 1,000/s.
 * 3. lag: 300 payments/s for max(10, --seconds) s, paced (and 100/s before it, the worker's delay
 *    on a machine that 300/s overloads); lag = the receiver's arrival time of a
 *    payment's notification of its final result - the time the payment's HTTP answer arrived,
 *    matched by PaymentGuid, one clock. Target: p99 <= 1 s (p50 and p95 given). A lag can be
 *    negative: the worker may deliver before the answer has reached the client.
 * 4. outage: the receiver down (BENCH_NOTIFICATIONS_DOWN_MODE: `refused`, its listener closed, or
 *    `503`) for BENCH_NOTIFICATIONS_DOWN_SECONDS (default 300, the issue's 5 minutes) while
 *    payments are made at 20/s, then up again: waits until every payment's notification has
 *    arrived (at most BENCH_NOTIFICATIONS_DRAIN_LIMIT s, default 3 x the downtime + 120: after a
 *    long outage the rows wait for their next scheduled retry, minutes away), and reports the time
 *    that took, the payments without a notification (target: none) and the duplicates; then reads
 *    each payment's notifications (GET /api/notifications) and checks that every one the server
 *    recorded arrived (its NotificationGuid as the event id header).
 *
 * BENCH_NOTIFICATIONS_PARTS=overhead,rate,lag,outage picks some of them (all by default);
 * BENCH_NOTIFICATIONS_BACKLOG the backlog's size (default 1,000 x --seconds, at least 5,000).
 */
import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SERVER_ENTRY, SERVER_NODE_FLAGS, freePort } from '../test/helpers/process.ts';
import { billingBenchConfig, openBenchServices, throwawayDatabase } from './lib/billing-setup.ts';
import { type LoadResult, load } from './lib/harness.ts';
import { type DownMode, NotificationReceiver, paced, percentile } from './lib/notification-receiver.ts';
import { seedTestPartner } from './lib/seed.ts';
import pg from 'pg';
import { paymentBody } from './payments.ts';

const ROOT = join(import.meta.dirname, '..');
const VAULT_KEY = Buffer.alloc(32, 7).toString('base64');
const TARGETS = { overheadRatio: 0.85, deliveriesPerSec: 1_000, lagP99Ms: 1_000 };
const OVERHEAD_CONNECTIONS = 12;
const OVERHEAD_ROUNDS = 4;
const LAG_RATE = 300;
const OUTAGE_RATE = 20;
const PARTS = ['overhead', 'overheadDeliveryProcess', 'rate', 'lag', 'outage'] as const;

function envNumber(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) throw new Error(`${name} must be a number of seconds or a count, not "${raw}"`);
  return value;
}

interface Service {
  url: string;
  token: string;
  child: ChildProcess;
  /** CPU seconds (user and system) the process has used, from /proc. */
  cpuSeconds(): number;
  stop(): Promise<void>;
}

/** CPU seconds (user and system) a process has used, from /proc; 0 once it has gone. */
function cpuSecondsOf(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
}

/** A throw-away database with one partner (the demo contract) and an access token of it. */
async function seededDatabase(name: string): Promise<{ url: string; token: string; drop(): Promise<void> }> {
  const db = await throwawayDatabase(name);
  try {
    const { store, services } = await openBenchServices(billingBenchConfig(db.url, VAULT_KEY, 2));
    try {
      const partner = await seedTestPartner(services, `Notifications Bench ${name}`, 'non-profit');
      const { token } = await services.sessions.createSession(partner.ClientId, partner.ClientSecret);
      return { ...db, token };
    } finally {
      await store.close();
    }
  } catch (err) {
    await db.drop();
    throw err;
  }
}

/** The service as `npm start` runs it, on `databaseUrl`; resolves once it listens. */
async function startService(db: { url: string; token: string }, env: Record<string, string> = {}): Promise<Service> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'payments-bench-notify-'));
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_ENTRY], {
    cwd: ROOT,
    env: {
      ...process.env,
      NODE_ENV: 'development',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      DATABASE_POOL_SIZE: '12',
      VAULT_KEY,
      DEMO: 'off',
      LOG_LEVEL: 'warn',
      METRICS_PORT: 'off',
      SESSION_RATE_LIMIT: '10000000',
      PUBLIC_RATE_LIMIT: '10000000',
      SHUTDOWN_GRACE: '5',
      NOTIFICATION_ALLOW_PRIVATE: 'on',
      // On unless a part turns it off, whatever the bench's own environment says.
      NOTIFICATION_WORKER: 'on',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // The last of its output, for the error when it stops unasked (a worker failing every delivery may log a lot).
  let tail = '';
  const keep = (d: Buffer) => (tail = (tail + d.toString('utf8')).slice(-8_000));
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the service did not start within 60 s:\n${tail}`)), 60_000);
    const onData = () => {
      if (!tail.includes('Payment service listening on')) return;
      clearTimeout(timer);
      child.stdout!.off('data', onData);
      resolve();
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with ${code} during its start:\n${tail}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    token: db.token,
    child,
    cpuSeconds: () => cpuSecondsOf(child.pid),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const killer = setTimeout(() => child.kill('SIGKILL'), 45_000);
        await exited;
        clearTimeout(killer);
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Sets the partner's one notification URL; fails clearly on a build without the feature. */
async function configure(service: Service, receiverUrl: string): Promise<void> {
  const res = await fetch(`${service.url}/api/notificationConfig`, {
    method: 'PUT',
    headers: { AccessToken: service.token, 'content-type': 'application/json' },
    body: JSON.stringify({
      NotificationConfigs: [{ NotificationConfigurationTypeId: '1', NotificationProtocolTypeId: '1', NotificationUrl: receiverUrl, Retries: 10, IsDeleted: false }],
    }),
  });
  const text = await res.text();
  if (res.status === 404) {
    throw new Error(`PUT /api/notificationConfig answered 404: this build has no payment notifications (issue 27); the notifications benchmark needs them. Answer: ${text.slice(0, 300)}`);
  }
  if (res.status !== 200) throw new Error(`PUT /api/notificationConfig answered ${res.status}: ${text.slice(0, 500)}`);
  const saved = (JSON.parse(text) as { NotificationConfigs?: { NotificationUrl?: string }[] } | { NotificationUrl?: string }[]);
  const list = Array.isArray(saved) ? saved : (saved.NotificationConfigs ?? []);
  if (!list.some((c) => c.NotificationUrl === receiverUrl)) throw new Error(`PUT /api/notificationConfig did not answer the saved URL: ${text.slice(0, 500)}`);
}

/** One payment (approved card); its PaymentGuid, PaymentId and when its answer arrived, or undefined when it was not a 201. */
async function payOnce(service: Service): Promise<{ guid: string; paymentId: number; sentAt: number; answeredAt: number } | undefined> {
  const sentAt = performance.now();
  try {
    const res = await fetch(`${service.url}/api/payment`, { method: 'POST', headers: { AccessToken: service.token, 'content-type': 'application/json' }, body: paymentBody() });
    const body = (await res.json()) as { PaymentGuid?: string; PaymentId?: number };
    const answeredAt = performance.now();
    if (res.status !== 201 || typeof body.PaymentGuid !== 'string') return undefined;
    return { guid: body.PaymentGuid.toLowerCase(), paymentId: Number(body.PaymentId), sentAt, answeredAt };
  } catch {
    return undefined;
  }
}

/**
 * The server's own record against the receiver's: every notification GET /api/notifications lists
 * for these payments, and whether its NotificationGuid (sent as the event id) arrived. A
 * notification the server made but the receiver never got is lost, whatever the PaymentGuids say.
 */
async function audit(service: Service, receiver: NotificationReceiver, paymentIds: number[]) {
  const received = new Set([...receiver.eventIds].map((id) => id.toLowerCase()));
  let recorded = 0;
  let arrived = 0;
  let withoutHistory = 0;
  let unreadable = 0;
  let maxRetryCount = 0;
  let retriesTotal = 0;
  const queue = [...paymentIds];
  const worker = async () => {
    for (let id = queue.pop(); id !== undefined; id = queue.pop()) {
      const res = await fetch(`${service.url}/api/notifications?paymentId=${id}`, { headers: { AccessToken: service.token } });
      const body = (await res.json()) as unknown;
      if (res.status === 404) {
        withoutHistory++;
        continue;
      }
      if (res.status !== 200 || !Array.isArray(body)) {
        unreadable++;
        continue;
      }
      for (const n of body as { NotificationGuid?: string; RetryCount?: number }[]) {
        recorded++;
        if (typeof n.NotificationGuid === 'string' && received.has(n.NotificationGuid.toLowerCase())) arrived++;
        maxRetryCount = Math.max(maxRetryCount, Number(n.RetryCount ?? 0));
        retriesTotal += Number(n.RetryCount ?? 0);
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
  return { payments: paymentIds.length, notificationsRecorded: recorded, recordedAndReceived: arrived, recordedNotReceived: recorded - arrived, paymentsWithoutHistory: withoutHistory, unreadableAnswers: unreadable, maxRetryCount, meanRetryCount: Number((retriesTotal / Math.max(1, recorded)).toFixed(2)) };
}

function paymentsLoad(service: Service, connections: number) {
  const headers = { AccessToken: service.token, 'content-type': 'application/json' };
  return {
    url: `${service.url}/api/payment`,
    connections,
    requests: [{ method: 'POST' as const, path: '/api/payment', headers, setupRequest: (req: object) => ({ ...req, body: paymentBody() }) }],
  };
}

/**
 * Payments in the database: autocannon counts the answers that came within its duration, not the
 * requests still in flight at its end, whose payments are made (and notified) all the same.
 */
async function paymentsIn(databaseUrl: string): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<{ n: number }>('SELECT count(*)::int AS n FROM payments')).rows[0]!.n;
  } finally {
    await client.end();
  }
}

const ms = (v: number | undefined) => (v === undefined ? null : Math.round(v));
const sorted = (values: number[]) => [...values].sort((a, b) => a - b);
const sleep = (msecs: number) => new Promise((resolve) => setTimeout(resolve, msecs));

/** Stops every service and drops every database it was given, whatever failed. */
async function withCleanup<T>(fn: (track: { service(s: Service): Service; db<D extends { drop(): Promise<void> }>(d: D): D }) => Promise<T>): Promise<T> {
  const services: Service[] = [];
  const dbs: { drop(): Promise<void> }[] = [];
  try {
    return await fn({
      service: (s) => (services.push(s), s),
      db: (d) => (dbs.push(d), d),
    });
  } finally {
    for (const s of services) await s.stop().catch(() => {});
    for (const d of dbs) await d.drop().catch(() => {});
  }
}

/** The delivery process of a deployment whose servers run NOTIFICATION_WORKER=off: `payments notifications deliver --follow`. */
function startDeliverer(db: { url: string }): Service {
  const child = spawn(process.execPath, ['bin/payments.js', 'notifications', 'deliver', '--follow'], {
    cwd: ROOT,
    // A data directory of its own, as the servers': the checkout's may name another database.
    env: { ...process.env, NODE_ENV: 'development', DATA_DIR: mkdtempSync(join(tmpdir(), 'payments-bench-deliver-')), DATABASE_URL: db.url, VAULT_KEY, LOG_LEVEL: 'warn', NOTIFICATION_ALLOW_PRIVATE: 'on' },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    url: '',
    token: '',
    child,
    cpuSeconds: () => cpuSecondsOf(child.pid),
    async stop() {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/**
 * `separateDeliverer`: the server of the partner with a URL runs without its worker
 * (NOTIFICATION_WORKER=off) and a delivery process of its own delivers, on the same machine.
 */
async function overhead(seconds: number, separateDeliverer = false) {
  const receiver = new NotificationReceiver();
  await receiver.up();
  try {
    return await withCleanup(async (track) => {
      const dbs = [track.db(await seededDatabase('notify_none')), track.db(await seededDatabase('notify_control')), track.db(await seededDatabase('notify_url'))];
      const [none, control, withUrl] = [
        track.service(await startService(dbs[0]!)),
        track.service(await startService(dbs[1]!)),
        track.service(await startService(dbs[2]!, separateDeliverer ? { NOTIFICATION_WORKER: 'off' } : {})),
      ];
      const deliverer = separateDeliverer ? track.service(startDeliverer(dbs[2]!)) : undefined;
      const delivererCpuBefore = deliverer?.cpuSeconds() ?? 0;
      await configure(withUrl, receiver.url);
      const each = Math.max(5, Math.round(seconds / 2));
      await Promise.all([none, control, withUrl].map((s) => load({ ...paymentsLoad(s, OVERHEAD_CONNECTIONS), seconds: 3 })));
      type Measured = LoadResult & { cpuSeconds: number };
      const measured = async (s: Service): Promise<Measured> => {
        const before = s.cpuSeconds();
        const r = await load({ ...paymentsLoad(s, OVERHEAD_CONNECTIONS), seconds: each });
        return { ...r, cpuSeconds: s.cpuSeconds() - before };
      };
      const runs: { none: Measured; control: Measured; withUrl: Measured; deliveredShare: number }[] = [];
      for (let round = 0; round < OVERHEAD_ROUNDS; round++) {
        const [a, b, c] = await Promise.all([measured(none), measured(control), measured(withUrl)]);
        // Payments whose notification had arrived when the round's load ended.
        const notified = receiver.payments.size;
        runs.push({ none: a, control: b, withUrl: c, deliveredShare: Number((notified / (await paymentsIn(dbs[2]!.url))).toFixed(3)) });
      }
      const loadEnded = performance.now();
      await sleep(200);
      const withUrlPayments = await paymentsIn(dbs[2]!.url);
      const drained = await receiver.waitUntil(() => receiver.payments.size >= withUrlPayments, 120_000);
      const drainMs = performance.now() - loadEnded;
      const total = (list: Measured[]) => {
        const requests = list.reduce((n, r) => n + r.requests, 0);
        return {
          requests,
          requestsPerSec: Math.round(list.reduce((n, r) => n + r.requestsPerSec, 0) / list.length),
          worstP99Ms: Math.max(...list.map((r) => r.latencyP99Ms)),
          non2xx: list.reduce((n, r) => n + r.non2xx, 0),
          errors: list.reduce((n, r) => n + r.errors, 0),
          serverCpuMsPerPayment: Number(((list.reduce((n, r) => n + r.cpuSeconds, 0) * 1000) / Math.max(1, requests)).toFixed(3)),
        };
      };
      const withoutUrl = total(runs.flatMap((r) => [r.none, r.control]));
      const withUrlTotal = total(runs.map((r) => r.withUrl));
      const ratio = withUrlTotal.requests / (withoutUrl.requests / 2);
      return {
        connectionsEach: OVERHEAD_CONNECTIONS,
        rounds: OVERHEAD_ROUNDS,
        secondsEach: each,
        withoutUrl,
        withUrl: withUrlTotal,
        withToWithoutThroughputRatio: Number(ratio.toFixed(3)),
        perRoundRatios: runs.map((r) => Number((r.withUrl.requests / ((r.none.requests + r.control.requests) / 2)).toFixed(3))),
        // The two servers without a URL against each other: how far the measure itself strays.
        withoutToWithoutControlRatio: Number((total(runs.map((r) => r.control)).requests / total(runs.map((r) => r.none)).requests).toFixed(3)),
        withoutToWithCpuPerPaymentRatio: Number((withoutUrl.serverCpuMsPerPayment / withUrlTotal.serverCpuMsPerPayment).toFixed(3)),
        // Share of the with-URL server's payments (warm-up included) notified by the end of each round.
        deliveredShareAtRoundEnd: runs.map((r) => r.deliveredShare),
        notifications: {
          payments: withUrlPayments,
          paymentsNotified: receiver.payments.size,
          requests: receiver.delivered,
          drainedAfterLoadMs: drained ? Math.round(drainMs) : null,
          unsigned: receiver.unsigned,
        },
        ...(deliverer
          ? { delivererCpuMsPerNotification: Number((((deliverer.cpuSeconds() - delivererCpuBefore) * 1000) / Math.max(1, receiver.delivered)).toFixed(3)) }
          : {}),
        meetsTarget: ratio >= TARGETS.overheadRatio,
      };
    });
  } finally {
    await receiver.close();
  }
}

async function deliveryRate(seconds: number) {
  const backlog = Math.round(envNumber('BENCH_NOTIFICATIONS_BACKLOG', Math.max(5_000, 1_000 * seconds)));
  const receiver = new NotificationReceiver();
  await receiver.up();
  try {
    return await withCleanup(async (track) => {
      const db = track.db(await seededDatabase('notify_backlog'));
      const maker = track.service(await startService(db, { NOTIFICATION_WORKER: 'off' }));
      await configure(maker, receiver.url);
      const made = await load({ ...paymentsLoad(maker, 16), amount: backlog, seconds: 3_600 });
      const payments = made.requests - made.non2xx;
      await maker.stop();
      if (receiver.delivered > 0) throw new Error(`${receiver.delivered} notifications arrived from a server with NOTIFICATION_WORKER=off`);
      const spawnedAt = performance.now();
      const deliverer = track.service(await startService(db));
      const readyAt = performance.now();
      const cpuBefore = deliverer.cpuSeconds();
      const done = await receiver.waitUntil(() => receiver.payments.size >= payments, Math.max(60_000, (payments / 100) * 1000));
      // Notifications of the same payments still on their way (a payment may make more than one).
      let settled = receiver.delivered;
      do {
        settled = receiver.delivered;
        await sleep(1_000);
      } while (receiver.delivered !== settled);
      const first = receiver.arrivals[0];
      const last = receiver.arrivals.at(-1);
      const span = first !== undefined && last !== undefined ? (last - first) / 1000 : 0;
      const perSec = span > 0 ? receiver.delivered / span : 0;
      return {
        backlogPayments: payments,
        backlogMadeAtPerSec: made.requestsPerSec,
        notificationsDelivered: receiver.delivered,
        paymentsNotified: receiver.payments.size,
        allPaymentsNotified: done,
        distinctEventIds: receiver.eventIds.size,
        eventIdHeader: receiver.eventIdHeader ?? null,
        unsigned: receiver.unsigned,
        firstToLastArrivalSeconds: Number(span.toFixed(2)),
        deliveriesPerSec: Math.round(perSec),
        // From the delivering server's start (its process start and migrations included) to the last arrival.
        fromStartToLastArrivalSeconds: last !== undefined ? Number(((last - spawnedAt) / 1000).toFixed(2)) : null,
        startToFirstArrivalMs: first !== undefined ? Math.round(first - readyAt) : null,
        delivererCpuMsPerNotification: Number((((deliverer.cpuSeconds() - cpuBefore) * 1000) / Math.max(1, receiver.delivered)).toFixed(3)),
        meetsTarget: done && perSec >= TARGETS.deliveriesPerSec,
      };
    });
  } finally {
    await receiver.close();
  }
}

/** The lag of each answered payment's notification of its final result (or its last one), in ms. */
function lagsOf(receiver: NotificationReceiver, answers: Map<string, number>): { lags: number[]; missing: number } {
  const lags: number[] = [];
  let missing = 0;
  for (const [guid, answeredAt] of answers) {
    const seen = receiver.payments.get(guid);
    if (!seen) missing++;
    else lags.push((seen.final ?? seen.last) - answeredAt);
  }
  return { lags: sorted(lags), missing };
}

function lagFigures(lags: number[], missing: number) {
  return { notified: lags.length, missing, p50Ms: ms(percentile(lags, 50)), p95Ms: ms(percentile(lags, 95)), p99Ms: ms(percentile(lags, 99)), maxMs: ms(lags.at(-1)), minMs: ms(lags[0]) };
}

/** Payments paced at `rate` for `duration` s, and the lag of their notifications. */
async function lagAt(service: Service, receiver: NotificationReceiver, rate: number, duration: number) {
  const answers = new Map<string, number>();
  const latencies: number[] = [];
  let failed = 0;
  const pacing = await paced(rate, duration, 256, async () => {
    const r = await payOnce(service);
    if (!r) return void failed++;
    answers.set(r.guid, r.answeredAt);
    latencies.push(r.answeredAt - r.sentAt);
  });
  const pacingEnded = performance.now();
  // Payments notified while the load ran: few means the worker waited for the load to end.
  const notifiedDuringLoad = [...answers.keys()].filter((g) => (receiver.payments.get(g)?.first ?? Infinity) <= pacingEnded).length;
  const allFinal = await receiver.waitUntil(() => [...answers.keys()].every((g) => receiver.payments.get(g)?.final !== undefined), 30_000);
  const { lags, missing } = lagsOf(receiver, answers);
  // The first and the last fifth of the payments (in answer order): a lag that grows while the
  // rate holds is a worker falling behind, not a constant delay.
  const inOrder = [...answers.keys()];
  const fifth = Math.max(1, Math.floor(inOrder.length / 5));
  const p50Of = (guids: string[]) => ms(percentile(lagsOf(receiver, new Map(guids.map((g) => [g, answers.get(g)!]))).lags, 50));
  const sortedLatencies = sorted(latencies);
  const p99 = percentile(lags, 99);
  return {
    ratePerSec: rate,
    seconds: duration,
    ...pacing,
    failedPayments: failed,
    paymentP50Ms: ms(percentile(sortedLatencies, 50)),
    paymentP99Ms: ms(percentile(sortedLatencies, 99)),
    everyPaymentGotAFinalResultNotification: allFinal,
    notifiedDuringLoad,
    lag: { ...lagFigures(lags, missing), firstFifthP50Ms: p50Of(inOrder.slice(0, fifth)), lastFifthP50Ms: p50Of(inOrder.slice(-fifth)) },
    meetsTarget: missing === 0 && p99 !== undefined && p99 <= TARGETS.lagP99Ms && pacing.achievedPerSec >= rate * 0.95,
  };
}

/**
 * At the 300 payments/s, and at a third of it: a machine that cannot make 300 payments/s
 * measures its own overload at 300 (payments queue for the pool the worker needs too), the lower
 * rate the worker's own delay.
 */
async function lag(seconds: number) {
  const duration = Math.max(10, seconds);
  const receiver = new NotificationReceiver();
  await receiver.up();
  try {
    return await withCleanup(async (track) => {
      const db = track.db(await seededDatabase('notify_lag'));
      const service = track.service(await startService(db));
      await configure(service, receiver.url);
      await paced(50, 2, 64, async () => void (await payOnce(service)));
      const lower = await lagAt(service, receiver, Math.round(LAG_RATE / 3), duration);
      const atTarget = await lagAt(service, receiver, LAG_RATE, duration);
      return { atTarget, atAThirdOfIt: lower, meetsTarget: atTarget.meetsTarget };
    });
  } finally {
    await receiver.close();
  }
}

async function outage() {
  const downSeconds = envNumber('BENCH_NOTIFICATIONS_DOWN_SECONDS', 300);
  const drainLimit = envNumber('BENCH_NOTIFICATIONS_DRAIN_LIMIT', 3 * downSeconds + 120);
  const mode: DownMode = process.env.BENCH_NOTIFICATIONS_DOWN_MODE === '503' ? '503' : 'refused';
  const receiver = new NotificationReceiver();
  await receiver.up();
  try {
    return await withCleanup(async (track) => {
      const db = track.db(await seededDatabase('notify_outage'));
      const service = track.service(await startService(db));
      await configure(service, receiver.url);
      await receiver.down(mode);
      const during = new Set<string>();
      const paymentIds: number[] = [];
      let failed = 0;
      const pacing = await paced(OUTAGE_RATE, downSeconds, 64, async () => {
        const r = await payOnce(service);
        if (!r) return void failed++;
        during.add(r.guid);
        paymentIds.push(r.paymentId);
      });
      const arrivedWhileDown = receiver.countReceived(during);
      await receiver.up();
      const upAt = performance.now();
      // Payments made once it is up are not held behind the backlog.
      const after = new Map<string, number>();
      await paced(OUTAGE_RATE, 2, 64, async () => {
        const r = await payOnce(service);
        if (!r) return;
        after.set(r.guid, r.answeredAt);
        paymentIds.push(r.paymentId);
      });
      const all = [...during, ...after.keys()];
      const done = await receiver.waitUntil(() => receiver.countReceived(all) === all.length, drainLimit * 1000);
      const firstArrivals = sorted([...during].flatMap((g) => (receiver.payments.has(g) ? [receiver.payments.get(g)!.first - upAt] : [])));
      const within = (s: number) => firstArrivals.filter((t) => t <= s * 1000).length;
      const afterLags = lagsOf(receiver, after);
      const notifiedDuring = receiver.countReceived(during);
      // Redeliveries may still be on their way when the last payment is notified.
      await sleep(2_000);
      const record = await audit(service, receiver, paymentIds);
      return {
        downMode: mode,
        downSeconds,
        drainLimitSeconds: drainLimit,
        paymentsWhileDown: during.size,
        pacing,
        failedPayments: failed,
        arrivedWhileDown,
        answered503WhileDown: receiver.refused503,
        notifiedAfterUp: notifiedDuring - arrivedWhileDown,
        lostPayments: during.size - notifiedDuring,
        // From the receiver's return to the first notification of the last payment made while it was down.
        drainSeconds: done && firstArrivals.length ? Number((firstArrivals.at(-1)! / 1000).toFixed(1)) : null,
        notifiedWithinSecondsOfUp: { 15: within(15), 60: within(60), 180: within(180), 600: within(600) },
        paymentsAfterUp: { made: after.size, lag: lagFigures(afterLags.lags, afterLags.missing) },
        notificationsDelivered: receiver.delivered,
        distinctEventIds: receiver.eventIds.size,
        eventIdHeader: receiver.eventIdHeader ?? null,
        // Requests beyond one per event id: redeliveries the receiver had already answered 200.
        duplicates: receiver.eventIdHeader || receiver.eventIds.size ? receiver.delivered - receiver.eventIds.size : null,
        // Every notification of every payment of this part (while down and after), by the server's record.
        record,
        meetsTarget: done && during.size > 0 && notifiedDuring === during.size && record.recordedNotReceived === 0 && record.paymentsWithoutHistory === 0 && record.notificationsRecorded > 0,
      };
    });
  } finally {
    await receiver.close();
  }
}

export async function run(options: { seconds: number }) {
  const wanted = (process.env.BENCH_NOTIFICATIONS_PARTS?.split(',').map((p) => p.trim()).filter(Boolean) ?? [...PARTS]) as string[];
  const unknown = wanted.filter((p) => !(PARTS as readonly string[]).includes(p));
  if (unknown.length) throw new Error(`BENCH_NOTIFICATIONS_PARTS: unknown part(s) ${unknown.join(', ')}; known: ${PARTS.join(', ')}`);
  const result: Record<string, unknown> = {
    target: `PostgreSQL: payments of a partner with a notification URL >= ${TARGETS.overheadRatio * 100} % of the throughput of one without; >= ${TARGETS.deliveriesPerSec} deliveries/s; lag p99 <= ${TARGETS.lagP99Ms} ms at ${LAG_RATE} payments/s; a receiver down, then up: every payment notified`,
  };
  const say = (part: string) => process.stdout.write(`-- ${part} (${new Date().toISOString()})\n`);
  if (wanted.includes('overhead')) (say('overhead'), (result.overhead = await overhead(options.seconds)));
  if (wanted.includes('overheadDeliveryProcess')) (say('overheadDeliveryProcess'), (result.overheadDeliveryProcess = await overhead(options.seconds, true)));
  if (wanted.includes('rate')) (say('rate'), (result.rate = await deliveryRate(options.seconds)));
  if (wanted.includes('lag')) (say('lag'), (result.lag = await lag(options.seconds)));
  if (wanted.includes('outage')) (say('outage'), (result.outage = await outage()));
  return result;
}
