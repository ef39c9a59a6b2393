import http from 'node:http';
import https from 'node:https';
import { performance } from 'node:perf_hooks';
import { guardedLookup, RefusedAddressError, type UrlPolicy, urlProblem } from './url-rules.ts';

/** What a receiver did with one POST. */
export type SendResult =
  | { ok: boolean; statusCode: number; ms: number; error?: undefined }
  | { ok: false; statusCode: null; ms: number; error: string };

/** Of a receiver's answer this much is read, the rest dropped: an answer is only its status. */
const ANSWER_LIMIT_BYTES = 4096;

/** Connection error codes said in words without the stack or the address (the log and the history show them). */
function describe(err: unknown): string {
  if (err instanceof RefusedAddressError) return err.message;
  const code = (err as { code?: string })?.code;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ECONNRESET':
      return 'connection reset';
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found';
    case 'ETIMEDOUT':
    case 'TIMEOUT':
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
 * POSTs JSON to partners' URLs: one keep-alive agent per scheme (a busy receiver keeps its
 * connections), no redirects followed (node's client never follows one), the host's addresses
 * checked at every connection, the whole exchange bounded by `timeoutMs`.
 */
export class HttpSender {
  readonly #policy: UrlPolicy;
  readonly #timeoutMs: number;
  readonly #http: http.Agent;
  readonly #https: https.Agent;

  constructor(options: { policy: UrlPolicy; timeoutMs: number; maxSockets?: number }) {
    this.#policy = options.policy;
    this.#timeoutMs = options.timeoutMs;
    const lookup = guardedLookup(options.policy);
    const agentOptions = { keepAlive: true, maxSockets: options.maxSockets ?? 256, lookup, timeout: options.timeoutMs };
    this.#http = new http.Agent(agentOptions);
    this.#https = new https.Agent(agentOptions);
  }

  post(url: string, body: string, headers: Record<string, string>): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const problem = urlProblem(url, this.#policy);
    if (problem) return Promise.resolve({ ok: false, statusCode: null, ms: 0, error: `the URL ${problem}` });
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let settled = false;
      const finish = (result: SendResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(result);
      };
      const request = client.request(
        target,
        {
          method: 'POST',
          agent: target.protocol === 'https:' ? this.#https : this.#http,
          headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(Buffer.byteLength(body)), 'user-agent': 'Payments-Notifications/1', ...headers },
        },
        (response) => {
          let read = 0;
          response.on('data', (chunk: Buffer) => {
            read += chunk.length;
            if (read > ANSWER_LIMIT_BYTES) {
              // The status is all we need; a receiver answering megabytes does not get to send them.
              const status = response.statusCode ?? 0;
              response.destroy();
              finish({ ok: status >= 200 && status < 300, statusCode: status, ms: elapsed() });
            }
          });
          response.on('end', () => {
            const status = response.statusCode ?? 0;
            finish({ ok: status >= 200 && status < 300, statusCode: status, ms: elapsed() });
          });
          response.on('error', (err) => finish({ ok: false, statusCode: null, ms: elapsed(), error: describe(err) }));
        },
      );
      const timer = setTimeout(() => {
        finish({ ok: false, statusCode: null, ms: elapsed(), error: `no answer within ${this.#timeoutMs} ms` });
        request.destroy();
      }, this.#timeoutMs);
      request.on('error', (err) => finish({ ok: false, statusCode: null, ms: elapsed(), error: describe(err) }));
      request.end(body);
    });
  }

  close(): void {
    this.#http.destroy();
    this.#https.destroy();
  }
}
