/**
 * A partner's notification receiver for bench/notifications.ts: a real node:http server on
 * 127.0.0.1 in the bench process, so that its arrival times and the payments' answer times are
 * read from one clock (performance.now()). It answers 200 as soon as the body is read, and can be
 * taken down (listener closed: connection refused; or 503) and brought back on the same port,
 * which the partner's configured URL names.
 */
import { type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';

/** What a notification told, by PaymentGuid. */
export interface PaymentArrivals {
  /** Arrival (performance.now()) of the first notification of the payment. */
  first: number;
  /** Arrival of the first one saying a final PaymentResult (not Pending nor Processing). */
  final?: number;
  /** Arrival of the latest one. */
  last: number;
  count: number;
}

export type DownMode = 'refused' | '503';

// Header names the unique event id may have; the issue leaves the name open ("a unique event id header").
const EVENT_ID_HEADER = /(^|-)(event|delivery|notification|webhook|message)(-?id)?$/i;
const NOT_FINAL = new Set(['pending', 'processing', '1', '2']);

export class NotificationReceiver {
  port = 0;
  /** Requests answered 200. */
  delivered = 0;
  /** Requests answered 503 while down in that mode. */
  refused503 = 0;
  /** Requests whose body was not JSON with a PaymentGuid. */
  unreadable = 0;
  /** 200-answered requests without a Payments-Signature header. */
  unsigned = 0;
  readonly payments = new Map<string, PaymentArrivals>();
  readonly eventIds = new Set<string>();
  /** The header the event id was read from (undefined until one was seen). */
  eventIdHeader: string | undefined;
  /** Arrival times of every 200-answered request, in order. */
  readonly arrivals: number[] = [];
  #server: Server | undefined;
  #mode: 'up' | DownMode = 'up';
  #waiters = new Set<() => void>();

  get url(): string {
    return `http://127.0.0.1:${this.port}/notifications`;
  }

  /** Listens (again) on its port, or on a free one the first time. */
  async up(): Promise<void> {
    this.#mode = 'up';
    if (this.#server) return;
    const server = createServer({ keepAliveTimeout: 30_000 }, (req, res) => this.#handle(req, res));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.#server = server;
  }

  /** Down: its listener closed and its connections cut (senders get ECONNREFUSED), or 503 to each. */
  async down(mode: DownMode): Promise<void> {
    this.#mode = mode;
    if (mode === '503') return;
    await this.close();
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    if (!server) return;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closed;
  }

  /** Resolves once `done()` holds (checked at each arrival and every 200 ms), or false after `timeoutMs`. */
  async waitUntil(done: () => boolean, timeoutMs: number): Promise<boolean> {
    if (done()) return true;
    return new Promise<boolean>((resolve) => {
      const check = () => {
        if (!done()) return;
        finish(true);
      };
      const timer = setInterval(check, 200);
      const limit = setTimeout(() => finish(false), timeoutMs);
      const finish = (result: boolean) => {
        clearInterval(timer);
        clearTimeout(limit);
        this.#waiters.delete(check);
        resolve(result);
      };
      this.#waiters.add(check);
    });
  }

  /** How many of `guids` have had a notification (any state). */
  countReceived(guids: Iterable<string>): number {
    let n = 0;
    for (const guid of guids) if (this.payments.has(guid)) n++;
    return n;
  }

  #handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (this.#mode === '503') {
        this.refused503++;
        res.writeHead(503, { 'content-type': 'text/plain' }).end('down');
        return;
      }
      const at = performance.now();
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      this.#record(at, req.headers, Buffer.concat(chunks).toString('utf8'));
      for (const waiter of this.#waiters) waiter();
    });
  }

  #record(at: number, headers: IncomingHttpHeaders, text: string): void {
    this.delivered++;
    this.arrivals.push(at);
    if (!headers['payments-signature']) this.unsigned++;
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      this.unreadable++;
      return;
    }
    const eventId = this.#eventId(headers) ?? (typeof body.NotificationGuid === 'string' ? body.NotificationGuid : undefined);
    if (eventId) this.eventIds.add(eventId);
    const guid = typeof body.PaymentGuid === 'string' ? body.PaymentGuid.toLowerCase() : undefined;
    if (!guid) {
      this.unreadable++;
      return;
    }
    const result = String(body.PaymentResultValue ?? body.PaymentResult ?? '').toLowerCase();
    const final = result !== '' && !NOT_FINAL.has(result);
    const seen = this.payments.get(guid);
    if (!seen) this.payments.set(guid, { first: at, last: at, count: 1, ...(final ? { final: at } : {}) });
    else {
      seen.last = at;
      seen.count++;
      if (final && seen.final === undefined) seen.final = at;
    }
  }

  #eventId(headers: IncomingHttpHeaders): string | undefined {
    if (this.eventIdHeader) {
      const value = headers[this.eventIdHeader];
      return typeof value === 'string' ? value : undefined;
    }
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value === 'string' && EVENT_ID_HEADER.test(name)) {
        this.eventIdHeader = name;
        return value;
      }
    }
    return undefined;
  }
}

/** The p-th percentile (nearest rank) of `values`, in their unit; undefined when there are none. */
export function percentile(sorted: number[], p: number): number | undefined {
  if (sorted.length === 0) return undefined;
  const rank = Math.ceil((p / 100) * sorted.length);
  return sorted[Math.min(sorted.length, Math.max(1, rank)) - 1];
}

/**
 * Calls `fire` `rate` times a second for `seconds`, on a schedule (the i-th call is due at
 * i / rate s), never more than `maxInFlight` at once: a call that would exceed it is skipped and
 * counted, so that a slow server shows as a lower achieved rate, not as a burst afterwards.
 */
export async function paced(rate: number, seconds: number, maxInFlight: number, fire: () => Promise<void>): Promise<{ sent: number; skipped: number; achievedPerSec: number }> {
  const started = performance.now();
  const total = Math.round(rate * seconds);
  let due = 0;
  let sent = 0;
  let skipped = 0;
  let inFlight = 0;
  const pending = new Set<Promise<void>>();
  while (due < total) {
    const now = performance.now();
    const dueNow = Math.min(total, Math.floor(((now - started) / 1000) * rate) + 1);
    for (; due < dueNow; due++) {
      if (inFlight >= maxInFlight) {
        skipped++;
        continue;
      }
      inFlight++;
      sent++;
      const p = fire().finally(() => {
        inFlight--;
        pending.delete(p);
      });
      pending.add(p);
    }
    await new Promise((resolve) => setTimeout(resolve, 2));
  }
  await Promise.allSettled([...pending]);
  const elapsed = (performance.now() - started) / 1000;
  return { sent, skipped, achievedPerSec: Math.round(sent / elapsed) };
}
