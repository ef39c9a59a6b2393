import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../helpers/database-url.ts';
import { cardPayment, type ServerProcesses, serverProcesses } from '../helpers/server-processes.ts';
import { freePort } from '../helpers/process.ts';
import { startReceiver, verifySignature, type Receiver } from '../helpers/receiver.ts';

/**
 * Server processes on one PostgreSQL database, as `npm start` runs them, with their delivery
 * workers on: two deliver each notification once between them; one killed with SIGKILL in the
 * middle of deliveries loses none (a restarted one takes over the claims when their lease ends).
 * PostgreSQL only: processes cannot share the embedded database.
 */
const url = testDatabaseUrl();

let servers: ServerProcesses;
let receiver: Receiver;

beforeAll(async () => {
  if (!url) return;
  servers = await serverProcesses('notifications', 'Notification Test Charity');
  receiver = await startReceiver();
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await servers?.close();
});

const DELIVERY_ENV = { NOTIFICATION_ALLOW_PRIVATE: 'on', NOTIFICATION_TIMEOUT: '1', NOTIFICATION_FIRST_RETRY: '1' };

const start = (extra: Record<string, string> = {}) => servers.start({ ...DELIVERY_ENV, ...extra });
const token = (base: string) => servers.token(base);

async function call(base: string, accessToken: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', AccessToken: accessToken },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

async function pay(base: string, accessToken: string): Promise<string> {
  const res = await call(base, accessToken, 'POST', '/api/payment', cardPayment('10.00'));
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json.PaymentGuid as string;
}

async function outbox() {
  const store = await servers.open();
  try {
    return (await store.sql.query<{ status: string; n: string }>('SELECT status, count(*) AS n FROM notifications GROUP BY status')).map((r) => ({ status: r.status, n: Number(r.n) }));
  } finally {
    await store.close();
  }
}

/** The PaymentGuids the receiver was told about, each with how many times. */
function told(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of receiver.received) {
    const guid = (JSON.parse(r.body) as { PaymentGuid: string }).PaymentGuid;
    counts.set(guid, (counts.get(guid) ?? 0) + 1);
  }
  return counts;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe.skipIf(!url)('notification delivery across processes (PostgreSQL)', () => {
  let secret: string;

  it('two server processes deliver each notification once between them', async () => {
    const [a, b] = await Promise.all([start(), start()]);
    const tokenA = await token(a!.base);
    const tokenB = await token(b!.base);
    const saved = await call(a!.base, tokenA, 'PUT', '/api/notificationConfig', {
      NotificationConfigs: [{ NotificationConfigurationTypeId: '1', NotificationProtocolTypeId: '1', NotificationUrl: receiver.url, Retries: 10 }],
    });
    expect(saved.status).toBe(200);
    secret = (await call(a!.base, tokenA, 'POST', '/api/notificationSecret')).json.SigningSecret as string;
    // Both servers sign with the new secret: each opens it afresh (its cache of the secret is a minute old at most, and was empty).
    const guids = await Promise.all(Array.from({ length: 60 }, (_, i) => pay(i % 2 ? a!.base : b!.base, i % 2 ? tokenA : tokenB)));
    await until(() => guids.every((g) => told().has(g)), 20_000, 'every notification');
    // A little longer: a second delivery of any would show now.
    await new Promise((r) => setTimeout(r, 1_000));
    expect([...told().values()].every((n) => n === 1)).toBe(true);
    expect(receiver.received).toHaveLength(60);
    for (const r of receiver.received) expect(verifySignature(r.headers['payments-signature'] as string, r.body, secret)).toBe(true);
    expect(await outbox()).toEqual([{ status: 'delivered', n: 60 }]);
    await Promise.all([a!.service.stop(), b!.service.stop()]);
  }, 90_000);

  it('a server killed with SIGKILL in the middle of deliveries loses none: a restarted one delivers them', async () => {
    receiver.received.length = 0;
    // Slow answers: deliveries are in flight when the process dies.
    receiver.answer = async () => {
      await new Promise((r) => setTimeout(r, 500));
      return 200;
    };
    const first = await start();
    const accessToken = await token(first.base);
    const guids = await Promise.all(Array.from({ length: 40 }, () => pay(first.base, accessToken)));
    await until(() => receiver.received.length >= 3, 10_000, 'the first deliveries');
    first.service.process.kill('SIGKILL');
    await new Promise((r) => first.service.process.once('exit', r));
    const atKill = await outbox();
    expect(atKill.find((r) => r.status === 'pending')?.n ?? 0, 'some were not delivered when it died').toBeGreaterThan(0);

    receiver.answer = () => 200;
    const second = await start();
    // Claims of the dead process come due when their lease (NOTIFICATION_TIMEOUT + 5 s) ends.
    await until(() => guids.every((g) => told().has(g)), 30_000, 'every notification after the restart');
    await until(async () => (await outbox()).every((r) => r.status === 'delivered'), 10_000, 'the outbox to be delivered');
    // At least once: one in flight at the kill may come twice; every one came.
    expect(guids.every((g) => (told().get(g) ?? 0) >= 1)).toBe(true);
    await second.service.stop();
  }, 90_000);

  it("a server delivers on a thread of its own: its metrics count the thread's deliveries, and it stops at once", async () => {
    receiver.received.length = 0;
    receiver.answer = () => 200;
    const metricsPort = await freePort();
    const server = await start({ METRICS_PORT: String(metricsPort) });
    const accessToken = await token(server.base);
    const guids = await Promise.all(Array.from({ length: 12 }, () => pay(server.base, accessToken)));
    await until(() => guids.every((g) => told().has(g)), 10_000, 'every notification');
    const scrape = async () => (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    // The thread reports its attempts every 100 ms.
    await until(async () => /^notification_deliveries_total\{result="delivered"\} 12$/m.test(await scrape()), 5_000, 'the delivered count');
    expect(await scrape()).toMatch(/^notification_delivery_lag_seconds_count 12$/m);
    const stoppedAt = Date.now();
    expect(await server.service.stop()).toBe(0);
    expect(Date.now() - stoppedAt, 'the thread ends with the server').toBeLessThan(5_000);
    expect(server.service.output()).not.toContain('stopping now, with work still in progress');
  }, 60_000);

  it('servers without a worker (NOTIFICATION_WORKER=off) and a delivery process (notifications deliver --follow): it delivers, and ends on SIGTERM', async () => {
    receiver.received.length = 0;
    receiver.answer = () => 200;
    const server = await start({ NOTIFICATION_WORKER: 'off' });
    const accessToken = await token(server.base);
    const before = await Promise.all(Array.from({ length: 5 }, () => pay(server.base, accessToken)));
    await new Promise((r) => setTimeout(r, 500));
    expect(before.some((g) => told().has(g)), 'the server itself delivers nothing').toBe(false);

    const deliverer = spawn(process.execPath, ['bin/payments.js', 'notifications', 'deliver', '--follow'], {
      cwd: `${import.meta.dirname}/../..`,
      env: { ...process.env, ...servers.env, ...DELIVERY_ENV },
    });
    let out = '';
    deliverer.stdout.on('data', (d) => (out += d));
    deliverer.stderr.on('data', (d) => (out += d));
    try {
      await until(() => before.every((g) => told().has(g)), 20_000, 'the backlog to be delivered');
      // Woken by the outbox: a payment made now is told within moments.
      const after = await pay(server.base, accessToken);
      await until(() => told().has(after), 5_000, 'the new payment to be delivered');
      const exited = new Promise<number | null>((resolve) => deliverer.once('exit', (code) => resolve(code)));
      deliverer.kill('SIGTERM');
      expect(await exited, out).toBe(0);
      expect(out).toContain('Delivering notifications until SIGTERM');
    } finally {
      if (deliverer.exitCode === null) deliverer.kill('SIGKILL');
      await server.service.stop();
    }
  }, 60_000);
});
