import { randomUUID } from 'node:crypto';
import type { FastifyReply } from 'fastify';
import type { RuleName } from '../../domain/rules.ts';
import { ValidationError, type Violation } from '../../platform/errors.ts';
import { ErrorCode } from './error-codes.ts';

/** RFC 9457 problem details, as ASP.NET Core writes them (with a traceId). */
const TYPES: Record<number, [string, string]> = {
  400: ['https://tools.ietf.org/html/rfc9110#section-15.5.1', 'Bad Request'],
  401: ['https://tools.ietf.org/html/rfc9110#section-15.5.2', 'Unauthorized'],
  403: ['https://tools.ietf.org/html/rfc9110#section-15.5.4', 'Forbidden'],
  404: ['https://tools.ietf.org/html/rfc9110#section-15.5.5', 'Not Found'],
  405: ['https://tools.ietf.org/html/rfc9110#section-15.5.6', 'Method Not Allowed'],
  408: ['https://tools.ietf.org/html/rfc9110#section-15.5.9', 'Request Timeout'],
  409: ['https://tools.ietf.org/html/rfc9110#section-15.5.10', 'Conflict'],
  410: ['https://tools.ietf.org/html/rfc9110#section-15.5.11', 'Gone'],
  413: ['https://tools.ietf.org/html/rfc9110#section-15.5.14', 'Content Too Large'],
  415: ['https://tools.ietf.org/html/rfc9110#section-15.5.16', 'Unsupported Media Type'],
  422: ['https://tools.ietf.org/html/rfc9110#section-15.5.21', 'Unprocessable Content'],
  429: ['https://tools.ietf.org/html/rfc6585#section-4', 'Too Many Requests'],
  431: ['https://tools.ietf.org/html/rfc6585#section-5', 'Request Header Fields Too Large'],
  500: ['https://tools.ietf.org/html/rfc9110#section-15.6.1', 'An error occurred while processing your request.'],
  503: ['https://tools.ietf.org/html/rfc9110#section-15.6.4', 'Service Unavailable'],
};

export interface Problem {
  type: string;
  title: string;
  status: number;
  detail: string | null;
  traceId: string;
  /** An extension member: the payment a 503 after the processor was asked is about. */
  PaymentGuid?: string;
}

export function problemBody(status: number, detail: string | null, traceId: string): Problem {
  const [type, title] = TYPES[status] ?? TYPES[500]!;
  return { type, title, status, detail, traceId };
}

export function sendProblem(reply: FastifyReply, status: number, detail: string | null, extensions: Pick<Problem, 'PaymentGuid'> = {}) {
  return reply
    .code(status)
    .type('application/problem+json; charset=utf-8')
    .send({ ...problemBody(status, detail, reply.request.id), ...extensions });
}

/**
 * What a request that Node's HTTP parser refused is answered (Fastify's `clientErrorHandler`),
 * before any route or reply exists: problem details like every other error, not Fastify's own
 * JSON. Headers (or a URL) beyond Node's 16 KiB are 431, a request that took too long 408, bytes
 * that are not HTTP 400. The connection is closed after the answer, as Node does.
 */
export function clientErrorResponse(code: string | undefined): string {
  const status = code === 'HPE_HEADER_OVERFLOW' ? 431 : code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const detail =
    status === 431
      ? 'The request line and header fields are larger than the server accepts (16 KiB in all).'
      : status === 408
        ? 'The request was not received in time.'
        : 'The request is not valid HTTP.';
  const body = JSON.stringify(problemBody(status, detail, randomUUID()));
  return (
    `HTTP/1.1 ${status} ${TYPES[status]![1]}\r\nContent-Type: application/problem+json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}

export interface BrokenRuleWire {
  ErrorCode: number;
  Message: string | null;
  LoggerMessage: string | null;
}

export function toBrokenRules(violations: readonly Violation[]): BrokenRuleWire[] {
  return violations.map((v) => brokenRule(v, ErrorCode[v.code as RuleName]));
}

function brokenRule(v: Violation, code: number): BrokenRuleWire {
  return {
    ErrorCode: code,
    Message: v.message,
    LoggerMessage: v.field ? `${v.field}: rule ${code}` : `rule ${code}`,
  };
}

export function sendBrokenRules(reply: FastifyReply, violations: readonly Violation[]) {
  return reply.code(400).type('application/json; charset=utf-8').send(toBrokenRules(violations));
}

/**
 * Violations this edge found itself, already in its own words (wire names, `'Field'` quoted): the
 * error handler sends them as they are. A service's ValidationError is said in surface A's words
 * first (wire-names.ts).
 */
export class ApiValidationError extends ValidationError {}
