import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../helpers/database-url.ts';
import { cardPayment, type ServerProcesses, serverProcesses } from '../helpers/server-processes.ts';

/**
 * Idempotency keys across real server processes (issue 29): the key's row is the lock, so a
 * request with a key that another process is running is 409; and a server killed with SIGKILL
 * while a keyed payment is at the processor leaves a key that is never run again.
 */

let servers: ServerProcesses;

beforeAll(async () => {
  servers = await serverProcesses('idempotency', 'Idempotency Test Charity');
}, 120_000);

afterAll(() => servers?.close());

const start = (extra: Record<string, string>) => servers.start(extra);
const token = (base: string) => servers.token(base);

const cardBody = (tranId: string) => JSON.stringify(cardPayment('100.00', tranId));

async function pay(base: string, accessToken: string, body: string, key: string) {
  const res = await fetch(`${base}/api/payment`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', AccessToken: accessToken, 'Idempotency-Key': key },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function paymentsOf(tranId: string): Promise<{ payment_result: number; successful: boolean }[]> {
  const store = await servers.open();
  try {
    return await store.sql.query('SELECT payment_result, successful FROM payments WHERE tran_id = $1 ORDER BY payment_id', [tranId]);
  } finally {
    await store.close();
  }
}

describe('a keyed payment across processes', () => {
  it.skipIf(!testDatabaseUrl())('running in one server process is 409 with Retry-After in another on the same PostgreSQL database, then replayed there', { timeout: 180_000 }, async () => {
    const a = await start({ SIMULATOR_LATENCY_MS: '2500' });
    const b = await start({ SIMULATOR_LATENCY_MS: '2500' });
    const accessToken = await token(a.base);
    const tranId = `idem-e2e-${randomUUID()}`;
    const key = randomUUID();
    const body = cardBody(tranId);
    const first = pay(a.base, accessToken, body, key);
    // At the processor in A: its Pending row is written.
    for (let i = 0; i < 100 && (await paymentsOf(tranId)).length === 0; i++) await sleep(50);
    const during = await pay(b.base, accessToken, body, key);
    expect(during.status).toBe(409);
    expect(during.headers.get('retry-after')).toBe('1');
    const answered = await first;
    expect(answered.status).toBe(201);
    const replayed = await pay(b.base, accessToken, body, key);
    expect(replayed.status).toBe(201);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(replayed.text).toBe(answered.text);
    expect(await paymentsOf(tranId)).toEqual([{ payment_result: 3, successful: true }]);
    expect(await a.service.stop()).toBe(0);
    expect(await b.service.stop()).toBe(0);
  });

  it('killed with SIGKILL while at the processor, then sent again with its key after a restart: never a second charge', { timeout: 180_000 }, async () => {
    const first = await start({ SIMULATOR_LATENCY_MS: '4000' });
    const accessToken = await token(first.base);
    const tranId = `idem-kill-${randomUUID()}`;
    const key = randomUUID();
    const body = cardBody(tranId);
    const lost = pay(first.base, accessToken, body, key).catch((err: unknown) => err);
    // PGlite: the database is the server's alone while it runs; the payment is at the processor
    // (4 s) well within a second.
    if (servers.env.DATABASE_URL) for (let i = 0; i < 100 && (await paymentsOf(tranId)).length === 0; i++) await sleep(50);
    else await sleep(1500);
    const gone = new Promise((resolve) => first.service.process.once('exit', resolve));
    first.service.process.kill('SIGKILL');
    await gone;
    expect(await lost).toBeInstanceOf(Error);

    const second = await start({ SIMULATOR_LATENCY_MS: '0' });
    const again = await pay(second.base, accessToken, body, key);
    // The key is held by a request that never ended: 409, whatever its lease says, and nothing runs.
    expect(again.status).toBe(409);
    expect(JSON.parse(again.text)).toMatchObject({ status: 409 });
    // The TranId rule still answers another key: the payment that holds the TranId, not a new charge.
    const otherKey = await pay(second.base, accessToken, body, randomUUID());
    expect(otherKey.status).toBe(201);
    expect(JSON.parse(otherKey.text)).toMatchObject({ Successful: false, ResponseCode: '-100' });
    expect(await second.service.stop()).toBe(0);
    const rows = await paymentsOf(tranId);
    // The killed request's payment, Pending for an operator, and the refused duplicate: one charge attempt in all.
    expect(rows).toEqual([
      { payment_result: 1, successful: false },
      { payment_result: 4, successful: false },
    ]);
  });
});
