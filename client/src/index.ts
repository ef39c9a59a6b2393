import createClient, { type Client } from 'openapi-fetch';
import { IDEMPOTENT_OPERATIONS, type components, type operations, type paths } from './generated/openapi.ts';

export type { components, operations, paths };
/** A 400's items: one per broken field or rule. */
export type BrokenRule = components['schemas']['BrokenRule'];
/** Every other error: RFC 9457 problem details. */
export type ProblemDetails = components['schemas']['ProblemDetails'];

export interface PaymentsClientOptions {
  /** The service's base URL, e.g. https://payments.example (no /api). */
  baseUrl: string;
  clientId: string;
  clientSecret: string;
  /**
   * Retries of one call after its first attempt (429, 503, 409 in flight; network errors and
   * timeouts only for reads and calls that take an Idempotency-Key). Default 2.
   */
  maxRetries?: number;
  /** The first retry waits up to this long (with jitter); each next one up to twice as long. Default 200 ms. */
  retryBaseDelayMs?: number;
  /** No wait between attempts is longer than this (a Retry-After beyond it is not waited for: the answer is returned). Default 30 s. */
  maxRetryDelayMs?: number;
  /** The AccessToken is renewed this long before it expires. Default 5 minutes. */
  renewBeforeMs?: number;
  /** Each attempt is abandoned (and retried, as a network error) after this long. Default 60 s. */
  attemptTimeoutMs?: number;
  /** Defaults to the global fetch. */
  fetch?: (request: Request) => Promise<Response>;
  /** Milliseconds since the epoch; tests move it. Default Date.now. */
  now?: () => number;
  /** A new Idempotency-Key; default crypto.randomUUID. */
  newKey?: () => string;
  /** Waits `ms`; tests may shorten it. */
  sleep?: (ms: number) => Promise<void>;
}

/** The typed client: one method per HTTP verb, typed by path (openapi-fetch), plus the session it holds. */
export type PaymentsClient = Client<paths> & {
  /** The AccessToken in use, renewed when due. */
  accessToken(): Promise<string>;
};

/** Statuses a call is retried on; never 400, 401, 404 or 422, which the same request would meet again. */
function retryable(response: Response): boolean {
  // 409 with Retry-After: a request with the same key is still running; without it, the request
  // with the key stopped and is not run again.
  if (response.status === 409) return response.headers.has('retry-after');
  return response.status === 429 || response.status === 503;
}

function retryAfterMs(response: Response | undefined, now: number): number | undefined {
  const value = response?.headers.get('retry-after');
  if (!value) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

const SESSION_PATH = /\/api\/ClientSession$/i;

/**
 * A client of surface A. It gets the AccessToken itself and renews it before it expires, sends a
 * new Idempotency-Key with each call that changes something (or the one given in the call's
 * headers), and retries network errors, 409 (in flight), 429 and 503 with exponential backoff and
 * full jitter, with the same key: a retried payment is charged once.
 */
export function createPaymentsClient(options: PaymentsClientOptions): PaymentsClient {
  const baseFetch = options.fetch ?? ((request: Request) => fetch(request));
  const now = options.now ?? Date.now;
  const maxRetries = options.maxRetries ?? 2;
  const baseDelay = options.retryBaseDelayMs ?? 200;
  const maxDelay = options.maxRetryDelayMs ?? 30_000;
  const renewBefore = options.renewBeforeMs ?? 5 * 60_000;
  const attemptTimeout = options.attemptTimeoutMs ?? 60_000;
  const newKey = options.newKey ?? (() => crypto.randomUUID());
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const base = options.baseUrl.replace(/\/+$/, '');

  /**
   * One call with its retries. `prepare` gives each attempt's headers (a renewed AccessToken).
   * A network error or timeout is retried only when `resendable`: the lost answer may be of a
   * request that ran, and only a read or a call with an Idempotency-Key runs once however often
   * it is sent (a second notificationSecret would rotate the secret again). Returns the last
   * answer; throws the last network error.
   */
  const withRetries = async (request: Request, resendable: boolean, prepare: (headers: Headers) => Promise<void>): Promise<Response> => {
    const body = request.body ? await request.arrayBuffer() : undefined;
    const caller = request.signal;
    for (let attempt = 0; ; attempt++) {
      const headers = new Headers(request.headers);
      await prepare(headers);
      const signal = AbortSignal.any([caller, AbortSignal.timeout(attemptTimeout)]);
      let response: Response | undefined;
      let failure: unknown;
      try {
        response = await baseFetch(new Request(request.url, { method: request.method, headers, body, signal }));
      } catch (err) {
        if (caller.aborted || !resendable) throw err;
        failure = err;
      }
      if (response && !retryable(response)) return response;
      const backoff = Math.random() * Math.min(maxDelay, baseDelay * 2 ** attempt);
      const asked = retryAfterMs(response, now());
      if (attempt >= maxRetries || (asked !== undefined && asked > maxDelay)) {
        if (response) return response;
        throw failure;
      }
      await response?.body?.cancel();
      await sleep(Math.max(backoff, asked ?? 0));
    }
  };

  let session: { token: string; renewAt: number } | undefined;
  let renewing: Promise<string> | undefined;

  const newSession = async (): Promise<string> => {
    const request = new Request(`${base}/api/ClientSession`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ClientId: options.clientId, ClientSecret: options.clientSecret }),
    });
    const sentAt = now();
    // A session more is harmless: a lost answer's token is never used.
    const response = await withRetries(request, true, async () => {});
    if (!response.ok) {
      const detail = await response.text();
      throw new PaymentsClientError(`ClientSession answered ${response.status}`, response.status, detail);
    }
    const { Token, ExpirationDate } = (await response.json()) as { Token: string; ExpirationDate: string };
    // The token's lifetime by the server's clock (its Date header), counted on this one.
    const serverNow = Date.parse(response.headers.get('date') ?? '');
    const lifetime = Date.parse(ExpirationDate) - (Number.isNaN(serverNow) ? sentAt : serverNow);
    session = { token: Token, renewAt: sentAt + lifetime - renewBefore };
    return Token;
  };

  const accessToken = (): Promise<string> => {
    if (session && now() < session.renewAt) return Promise.resolve(session.token);
    renewing ??= newSession().finally(() => (renewing = undefined));
    return renewing;
  };

  const basePath = new URL(base).pathname.replace(/\/+$/, '');

  const send = async (request: Request): Promise<Response> => {
    const { pathname } = new URL(request.url);
    if (SESSION_PATH.test(pathname)) return withRetries(request, true, async () => {});
    const changes = request.method !== 'GET' && request.method !== 'HEAD';
    const resendable = !changes || IDEMPOTENT_OPERATIONS.has(`${request.method} ${pathname.slice(basePath.length)}`);
    // One key per logical call: every attempt of it sends the same.
    const key = request.headers.get('idempotency-key') ?? (changes ? newKey() : undefined);
    let token: string | undefined;
    const response = await withRetries(request, resendable, async (headers) => {
      token = await accessToken();
      headers.set('AccessToken', token);
      if (key) headers.set('Idempotency-Key', key);
    });
    // An AccessToken refused (ended by a secret rotation, say): the next call gets a new one.
    if (response.status === 401 && session?.token === token) session = undefined;
    return response;
  };

  const client = createClient<paths>({ baseUrl: base, fetch: send }) as PaymentsClient;
  client.accessToken = accessToken;
  return client;
}

/** A call the client could not make (the session refused). */
export class PaymentsClientError extends Error {
  readonly status: number;
  readonly body: string;
  constructor(message: string, status: number, body: string) {
    super(message);
    this.name = 'PaymentsClientError';
    this.status = status;
    this.body = body;
  }
}
