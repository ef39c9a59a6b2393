import { randomUUID } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type PaymentsClientOptions, createPaymentsClient } from '../src/index.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { testConfig } from '../../src/config.ts';
import { createDemoPartner } from '../../src/demo/seed.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices } from '../../src/composition.ts';
import { openStore } from '../../src/platform/database/database.ts';
import { type RunningService, startService } from '../../test/helpers/process.ts';
import { processStore } from '../../test/helpers/store.ts';
import { cardPayment } from '../../test/helpers/server-processes.ts';
import { testLogger } from '../../test/helpers/logger.ts';

/**
 * The client against the service started as `npm start` runs it, through a proxy in this process
 * that can drop an answer, cut a connection or answer in the service's place.
 */

/** The simulator's latency: long enough to cut a payment's connection while it is at the processor. */
const LATENCY_MS = 700;

type Trouble = 'drop-answer' | 'cut-while-running' | '503' | 'no-token';
interface Seen {
  method: string;
  path: string;
  key: string | undefined;
  status: number | 'dropped' | 'cut';
  replayed: boolean;
}

/** An HTTP proxy to the service; `next` troubles the next matching requests, one each. */
class TroubleProxy {
  readonly seen: Seen[] = [];
  readonly next: { trouble: Trouble; path: RegExp }[] = [];
  readonly #server: Server;
  readonly #upstreamPort: number;
  constructor(upstreamPort: number) {
    this.#upstreamPort = upstreamPort;
    this.#server = createServer((req, res) => void this.#handle(req, res));
  }
  async listen(): Promise<string> {
    await new Promise<void>((resolve) => this.#server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.#server.address() as AddressInfo).port}`;
  }
  close(): Promise<void> {
    this.#server.closeAllConnections();
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
  async #handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const path = req.url!.split('?')[0]!;
    const index = this.next.findIndex((n) => n.path.test(path));
    const trouble = index >= 0 ? this.next.splice(index, 1)[0]!.trouble : undefined;
    const key = req.headers['idempotency-key'] as string | undefined;
    const entry: Seen = { method: req.method!, path, key, status: 0, replayed: false };
    this.seen.push(entry);
    if (trouble === '503') {
      entry.status = 503;
      res.writeHead(503, { 'content-type': 'application/problem+json; charset=utf-8', 'retry-after': '0' });
      res.end(JSON.stringify({ type: 'about:blank', title: 'Service Unavailable', status: 503, detail: 'proxy', traceId: 'proxy' }));
      return;
    }
    const headers = { ...req.headers };
    if (trouble === 'no-token') delete headers.accesstoken;
    const upstream = httpRequest({ host: '127.0.0.1', port: this.#upstreamPort, method: req.method, path: req.url, headers });
    upstream.end(Buffer.concat(chunks));
    if (trouble === 'cut-while-running') {
      // The request reached the service; the client's connection ends before any answer.
      entry.status = 'cut';
      req.socket.destroy();
      upstream.on('response', (r) => r.resume());
      return;
    }
    upstream.on('response', (answer) => {
      const body: Buffer[] = [];
      answer.on('data', (c: Buffer) => body.push(c));
      answer.on('end', () => {
        entry.replayed = answer.headers['idempotent-replayed'] === 'true';
        if (trouble === 'drop-answer') {
          // The service answered; the answer is lost on the way back.
          entry.status = 'dropped';
          req.socket.destroy();
          return;
        }
        entry.status = answer.statusCode!;
        res.writeHead(answer.statusCode!, answer.headers);
        res.end(Buffer.concat(body));
      });
    });
  }
}

let service: RunningService;
let proxy: TroubleProxy;
let proxyUrl: string;
let env: Record<string, string>;
let cleanup: () => Promise<void>;
let partner: { ClientId: string; ClientSecret: string };

beforeAll(async () => {
  ({ env, cleanup } = await processStore('client'));
  const store = await openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 2 });
  try {
    const services = createServices({ log: testLogger(), store, clock: new ManualClock(), ids: cryptoIds, config: testConfig() });
    partner = await createDemoPartner(services, 'Client Test Charity', 'non-profit');
  } finally {
    await store.close();
  }
  service = await startService({ ...env, DEMO: 'off', BILLING_WORKER: 'off', SIMULATOR_LATENCY_MS: String(LATENCY_MS) });
  proxy = new TroubleProxy(service.port);
  proxyUrl = await proxy.listen();
}, 120_000);

afterAll(async () => {
  await proxy?.close();
  await service?.stop();
  await cleanup?.();
});

const client = (options: Partial<PaymentsClientOptions> = {}) =>
  createPaymentsClient({ baseUrl: proxyUrl, clientId: partner.ClientId, clientSecret: partner.ClientSecret, retryBaseDelayMs: 20, ...options });

const cardBody = (tranId: string) => cardPayment('100.00', tranId);

const attemptsOf = (path: string, since: number) => proxy.seen.slice(since).filter((s) => s.path === path);

/** The payments the service recorded for each TranId, read after it stopped (PGlite allows one process). */
const tranIds: { tranId: string; approvedOnce: true }[] = [];

describe('a payment through a proxy that loses answers', () => {
  it('whose first answer is dropped is retried with the same key and charged once', async () => {
    const tranId = `client-${randomUUID()}`;
    const since = proxy.seen.length;
    proxy.next.push({ trouble: 'drop-answer', path: /^\/api\/payment$/ });
    const { data, response } = await client().POST('/api/payment', { body: cardBody(tranId) });
    expect(response.status).toBe(201);
    expect(data!.Successful).toBe(true);
    expect(data!.TranId).toBe(tranId);
    expect(response.headers.get('idempotent-replayed')).toBe('true');
    const attempts = attemptsOf('/api/payment', since);
    expect(attempts.map((a) => a.status)).toEqual(['dropped', 201]);
    expect(attempts[0]!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(attempts[1]!.key).toBe(attempts[0]!.key);
    tranIds.push({ tranId, approvedOnce: true });
  });

  it('whose connection is cut while it runs meets 409 (in flight), waits for Retry-After, and gets its answer, charged once', async () => {
    const tranId = `client-${randomUUID()}`;
    const since = proxy.seen.length;
    proxy.next.push({ trouble: 'cut-while-running', path: /^\/api\/payment$/ });
    const { data, response } = await client({ maxRetries: 5 }).POST('/api/payment', { body: cardBody(tranId) });
    expect(response.status).toBe(201);
    expect(data!.Successful).toBe(true);
    const statuses = attemptsOf('/api/payment', since).map((a) => a.status);
    expect(statuses[0]).toBe('cut');
    expect(statuses).toContain(409);
    expect(statuses.at(-1)).toBe(201);
    expect(new Set(attemptsOf('/api/payment', since).map((a) => a.key)).size).toBe(1);
    tranIds.push({ tranId, approvedOnce: true });
  });

  it('gives each logical call its own key', async () => {
    const since = proxy.seen.length;
    const payments = client();
    await payments.POST('/api/payment', { body: cardBody(`client-${randomUUID()}`) });
    await payments.POST('/api/payment', { body: cardBody(`client-${randomUUID()}`) });
    const keys = attemptsOf('/api/payment', since).map((a) => a.key);
    expect(keys).toHaveLength(2);
    expect(keys[0]).not.toBe(keys[1]);
  });

  it('retries a 503 (Retry-After) and reaches the service', async () => {
    const since = proxy.seen.length;
    proxy.next.push({ trouble: '503', path: /^\/api\/payment$/ });
    const { response } = await client().POST('/api/payment', { body: cardBody(`client-${randomUUID()}`) });
    expect(response.status).toBe(201);
    expect(attemptsOf('/api/payment', since).map((a) => a.status)).toEqual([503, 201]);
  });

  it('gives up after maxRetries, and throws when no attempt was answered', async () => {
    const since = proxy.seen.length;
    for (let i = 0; i < 3; i++) proxy.next.push({ trouble: 'drop-answer', path: /^\/api\/void$/ });
    await expect(client().POST('/api/void', { body: { PaymentGuid: randomUUID(), Reason: 'test' } })).rejects.toThrow();
    expect(attemptsOf('/api/void', since)).toHaveLength(3);
  });
});

describe('calls that are never retried', () => {
  it('400: one attempt, the BrokenRules typed', async () => {
    const since = proxy.seen.length;
    const { error, response } = await client().POST('/api/payment', { body: { ...cardBody('x'), CardNum: '4242424242424241' } });
    expect(response.status).toBe(400);
    expect((error as { ErrorCode: number }[])[0]!.ErrorCode).toBe(3000);
    expect(attemptsOf('/api/payment', since)).toHaveLength(1);
  });

  it('404: one attempt', async () => {
    const since = proxy.seen.length;
    const { error, response } = await client().POST('/api/refund', { body: { PaymentGuid: randomUUID(), Reason: 'test' } });
    expect(response.status).toBe(404);
    expect((error as { status: number }).status).toBe(404);
    expect(attemptsOf('/api/refund', since)).toHaveLength(1);
  });

  it('422 (a key given by the caller, used before for another request): one attempt', async () => {
    const key = randomUUID();
    const payments = client();
    await payments.POST('/api/payment', { body: cardBody(`client-${randomUUID()}`), headers: { 'Idempotency-Key': key } });
    const since = proxy.seen.length;
    const { response } = await payments.POST('/api/payment', { body: cardBody(`client-${randomUUID()}`), headers: { 'Idempotency-Key': key } });
    expect(response.status).toBe(422);
    expect(attemptsOf('/api/payment', since).map((a) => a.key)).toEqual([key]);
  });

  it('401: one attempt, and the next call gets a new AccessToken', async () => {
    const payments = client();
    await payments.accessToken();
    const since = proxy.seen.length;
    proxy.next.push({ trouble: 'no-token', path: /^\/api\/void$/ });
    const { response } = await payments.POST('/api/void', { body: { PaymentGuid: randomUUID(), Reason: 'test' } });
    expect(response.status).toBe(401);
    expect(attemptsOf('/api/void', since)).toHaveLength(1);
    await payments.POST('/api/void', { body: { PaymentGuid: randomUUID(), Reason: 'test' } });
    expect(attemptsOf('/api/ClientSession', since)).toHaveLength(1);
  });
});

describe('a lost answer', () => {
  it('of a call that takes no Idempotency-Key (a secret rotation) is not sent again: it throws after one attempt', async () => {
    const since = proxy.seen.length;
    proxy.next.push({ trouble: 'drop-answer', path: /^\/api\/notificationSecret$/ });
    await expect(client().POST('/api/notificationSecret', {})).rejects.toThrow();
    expect(attemptsOf('/api/notificationSecret', since)).toHaveLength(1);
  });

  it('of a read is asked again', async () => {
    const since = proxy.seen.length;
    proxy.next.push({ trouble: 'drop-answer', path: /^\/api\/notifications$/ });
    const { response } = await client().GET('/api/notifications', { params: { query: { paymentId: 1 } } });
    expect(response.status).toBe(404);
    expect(attemptsOf('/api/notifications', since).map((a) => a.status)).toEqual(['dropped', 404]);
  });
});

describe('a report export', () => {
  it('is read as the file it is (parseAs), typed by its operation', async () => {
    const { data, response } = await client().POST('/api/exportSourceTransactionsReport', { body: { Filters: [], Format: 'csv' }, parseAs: 'text' });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(data!.split('\r\n')[0]).toMatch(/^PaymentId,PaymentGuid,/);
  });
});

describe('the AccessToken', () => {
  it('is got once, and renewed 5 minutes before it expires (5 hours)', async () => {
    let now = Date.now();
    const payments = client({ now: () => now });
    const since = proxy.seen.length;
    const first = await payments.accessToken();
    expect(await payments.accessToken()).toBe(first);
    now += 5 * 3_600_000 - 6 * 60_000;
    expect(await payments.accessToken()).toBe(first);
    now += 2 * 60_000;
    const renewed = await payments.accessToken();
    expect(renewed).not.toBe(first);
    expect(attemptsOf('/api/ClientSession', since)).toHaveLength(2);
    // Concurrent calls share one renewal.
    now += 5 * 3_600_000;
    await Promise.all([payments.accessToken(), payments.accessToken(), payments.accessToken()]);
    expect(attemptsOf('/api/ClientSession', since)).toHaveLength(3);
  });
});

describe('afterwards, in the database', () => {
  it('each payment whose answer was lost was charged exactly once', async () => {
    expect(await service.stop()).toBe(0);
    const store = await openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 2 });
    try {
      for (const { tranId } of tranIds) {
        const rows = await store.sql.query<{ successful: boolean; transaction_id: string | null }>('SELECT successful, transaction_id FROM payments WHERE tran_id = $1', [tranId]);
        expect(rows, tranId).toHaveLength(1);
        expect(rows[0]!.successful).toBe(true);
      }
    } finally {
      await store.close();
    }
    expect(tranIds).toHaveLength(2);
  });
});
