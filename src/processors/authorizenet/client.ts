import { ProcessorNotReachedError } from '../processor.ts';

/**
 * A small typed client of Authorize.Net's JSON API over `fetch` (docs/decisions.md, "Authorize.Net:
 * our own client, not the SDK"): one endpoint, one POST per call, the API name as the body's only
 * key. Its answers start with a byte order mark, and its amounts are JSON numbers: every number is
 * read as its decimal text (no float ever holds money).
 */

export const ENDPOINTS = {
  sandbox: 'https://apitest.authorize.net/xml/v1/request.api',
  production: 'https://api.authorize.net/xml/v1/request.api',
} as const;

export type Environment = keyof typeof ENDPOINTS;

export interface MerchantAuthentication {
  name: string;
  transactionKey: string;
}

export interface ApiMessages {
  resultCode: 'Ok' | 'Error';
  message: { code: string; text: string }[];
}

/** What every answer has. */
export interface ApiResponse {
  refId?: string;
  messages: ApiMessages;
}

/** The answer was not Authorize.Net's (not JSON, not its shape, an HTTP error): whether it acted is unknown. */
export class AuthorizeNetAnswerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AuthorizeNetAnswerError';
  }
}

/** The connection failed after the request may have been sent (reset, closed mid-answer): whether it acted is unknown. */
export class AuthorizeNetConnectionError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'AuthorizeNetConnectionError';
  }
}

/**
 * Errors of a connection that was never made, or whose TLS handshake failed: nothing was sent.
 * Any other failure (a reset, a socket closed while waiting) may come after the request was sent.
 */
const NOT_SENT = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ENETUNREACH',
  'EHOSTUNREACH',
  'EADDRNOTAVAIL',
  'UND_ERR_CONNECT_TIMEOUT',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** The error codes in an error's causes (fetch wraps the socket's error; several addresses make an AggregateError). */
function errorCodes(err: unknown, depth = 0): string[] {
  if (!err || typeof err !== 'object' || depth > 5) return [];
  const e = err as { code?: unknown; cause?: unknown; errors?: unknown };
  const own = typeof e.code === 'string' ? [e.code] : [];
  const nested = Array.isArray(e.errors) ? e.errors.flatMap((x) => errorCodes(x, depth + 1)) : [];
  return [...own, ...nested, ...errorCodes(e.cause, depth + 1)];
}

/** JSON with every number kept as its decimal text. */
function parseAnswer(text: string): unknown {
  // The reviver's third argument (the source text) is in V8 since Node.js 21.
  const keepText = (_key: string, value: unknown, context?: { source?: string }) => (typeof value === 'number' && context?.source !== undefined ? context.source : value);
  return JSON.parse(text.replace(/^\uFEFF/, ''), keepText as (key: string, value: unknown) => unknown);
}

/**
 * POSTs one API request (`{ [name]: body }`) and gives its answer. Throws ProcessorNotReachedError
 * when nothing was sent; the signal's reason when the call was abandoned (the deadline); an
 * AuthorizeNetConnectionError or AuthorizeNetAnswerError when it may have been received. The
 * errors never quote the request (it holds card numbers and the transaction key).
 */
export async function postApi<T extends ApiResponse>(url: string, name: string, body: object, signal?: AbortSignal): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: JSON.stringify({ [name]: body }),
      signal,
      redirect: 'error',
    });
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    const codes = errorCodes(err);
    if (codes.some((c) => NOT_SENT.has(c))) throw new ProcessorNotReachedError(`Authorize.Net could not be reached (${codes.find((c) => NOT_SENT.has(c))})`);
    throw new AuthorizeNetConnectionError(`the connection to Authorize.Net failed (${codes[0] ?? (err as Error)?.name ?? 'unknown'})`, err);
  }
  let text: string;
  try {
    text = await response.text();
  } catch (err) {
    if (signal?.aborted) throw signal.reason;
    throw new AuthorizeNetConnectionError(`the answer of Authorize.Net was cut off (${errorCodes(err)[0] ?? 'unknown'})`, err);
  }
  if (response.status !== 200) throw new AuthorizeNetAnswerError(`Authorize.Net answered HTTP ${response.status}`);
  let answer: unknown;
  try {
    answer = parseAnswer(text);
  } catch {
    throw new AuthorizeNetAnswerError('the answer of Authorize.Net is not JSON');
  }
  const messages = (answer as { messages?: { resultCode?: unknown; message?: unknown } } | null)?.messages;
  if (!messages || (messages.resultCode !== 'Ok' && messages.resultCode !== 'Error') || !Array.isArray(messages.message)) {
    throw new AuthorizeNetAnswerError('the answer of Authorize.Net has no result code');
  }
  return answer as T;
}

/** The first message of an answer, as "E00007 User authentication failed ...". */
export function firstMessage(answer: ApiResponse): string {
  const m = answer.messages.message[0];
  return m ? `${m.code} ${m.text}` : answer.messages.resultCode;
}
