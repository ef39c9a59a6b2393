import { performance } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { guardedLookup, RefusedAddressError, type UrlPolicy, urlProblem } from './url-rules.ts';

/** What a receiver did with one POST. */
export type SendResult =
  | { ok: boolean; statusCode: number; ms: number; error?: undefined }
  | { ok: false; statusCode: null; ms: number; error: string };

/** Of a receiver's answer this much is read, the rest dropped: an answer is only its status. */
const ANSWER_LIMIT_BYTES = 4096;

/** Connection error codes said in words without the stack or the address (the log and the history show them). */
function describe(err: unknown): string {
  // undici wraps a socket's error as the cause of its own.
  const cause = (err as { cause?: unknown })?.cause;
  if (err instanceof RefusedAddressError || cause instanceof RefusedAddressError) return new RefusedAddressError().message;
  const code = (err as { code?: string })?.code === 'UND_ERR_SOCKET' && cause ? (cause as { code?: string }).code : (err as { code?: string })?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
    case 'UND_ERR_CLOSED':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
    case 'TIMEOUT':
    case 'UND_ERR_CONNECT_TIMEOUT':
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return 'timed out';
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return 'host unreachable';
    default:
      if (code?.startsWith('ERR_TLS') || code?.includes('CERT')) return `TLS error (${code})`;
      return code ? `connection error (${code})` : 'connection error';
  }
}

/**
 * POSTs JSON to partners' URLs with undici (a third of node:http's CPU per request, measured
 * here: the worker shares its process with the payments): keep-alive connections per origin,
 * no redirects followed (undici's request follows none), the host's addresses checked at every
 * connection, the whole exchange bounded by `timeoutMs`.
 */
export class HttpSender {
  readonly #policy: UrlPolicy;
  readonly #timeoutMs: number;
  readonly #agent: Agent;

  constructor(options: { policy: UrlPolicy; timeoutMs: number; maxSockets?: number }) {
    this.#policy = options.policy;
    this.#timeoutMs = options.timeoutMs;
    this.#agent = new Agent({
      connections: options.maxSockets ?? 256,
      connect: { lookup: guardedLookup(options.policy), timeout: options.timeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
    });
  }

  async post(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const problem = urlProblem(url, this.#policy);
    if (problem) return { ok: false, statusCode: null, ms: 0, error: `the URL ${problem}` };
    const signal = AbortSignal.timeout(this.#timeoutMs);
    try {
      const response = await request(url, {
        method: 'POST',
        dispatcher: this.#agent,
        body,
        headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Payments-Notifications/1', ...headers },
        signal,
      });
      // The status is all we need; a receiver answering megabytes does not get to send them.
      await response.body.dump({ limit: ANSWER_LIMIT_BYTES }).catch(() => {});
      const status = response.statusCode;
      return { ok: status >= 200 && status < 300, statusCode: status, ms: elapsed() };
    } catch (err) {
      if (signal.aborted) return { ok: false, statusCode: null, ms: elapsed(), error: `no answer within ${this.#timeoutMs} ms` };
      return { ok: false, statusCode: null, ms: elapsed(), error: describe(err) };
    }
  }

  close(): void {
    void this.#agent.destroy().catch(() => {});
  }
}
