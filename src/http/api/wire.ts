import { type TSchema, Type } from 'typebox';

/**
 * Shared wire schemas of surface A. The spec's names (PascalCase) live here and in the resource
 * files only.
 */

/** A response field that is written as `null` when it has no value. */
export function Nullable<T extends TSchema>(schema: T) {
  return Type.Union([schema, Type.Null()]);
}

export const BrokenRule = Type.Object(
  {
    ErrorCode: Type.Integer({ format: 'int32' }),
    Message: Nullable(Type.String()),
    LoggerMessage: Nullable(Type.String()),
  },
  { $id: 'BrokenRule', title: 'BrokenRule' },
);

export const BrokenRules = Type.Array(Type.Ref('BrokenRule'), {
  description: 'One BrokenRule per broken field or rule.',
});

export const ProblemDetails = Type.Object(
  {
    type: Type.String(),
    title: Type.String(),
    status: Type.Integer(),
    detail: Nullable(Type.String()),
    traceId: Type.String(),
    PaymentGuid: Type.Optional(
      Type.String({ format: 'uuid', description: 'On a 503 after the processor was asked: the payment (or refund or void) whose outcome is being confirmed. Do not pay or send it again.' }),
    ),
  },
  { $id: 'ProblemDetails', title: 'ProblemDetails', description: 'RFC 9457 problem details (application/problem+json).' },
);

const problem = (description: string) => ({ ...Type.Ref('ProblemDetails'), description });

const retryAfter = (description: string) => ({ 'Retry-After': { type: 'integer', description } });

/** @fastify/rate-limit's headers, on every answer of a rate-limited route (index.ts adds them). */
export const rateLimitHeaders = {
  'X-RateLimit-Limit': { type: 'integer', description: 'Requests this client may send in the window.' },
  'X-RateLimit-Remaining': { type: 'integer', description: 'Requests left in the window.' },
  'X-RateLimit-Reset': { type: 'integer', description: 'Seconds until the window resets.' },
};

/**
 * The error responses of surface A's routes, for the OpenAPI document: each route lists those it
 * can give (documentAuthAndErrors in index.ts), so that typed clients have a type for each.
 */
export const errorResponses = {
  400: { ...BrokenRules, description: 'Validation failed: one BrokenRule per broken field or rule.' },
  /** Routes that need an AccessToken. */
  401: problem('The AccessToken header is missing, unknown or expired.'),
  /** Routes that take a body. */
  413: problem('The body is larger than 1 MiB.'),
  415: problem('The content type is not a JSON type, or the body is compressed.'),
  /** Rate-limited routes. */
  429: { ...problem('Too many requests from this client.'), headers: retryAfter('Seconds until the limit resets.') },
  500: problem('Internal error; nothing internal is revealed.'),
  503: {
    ...problem('The service cannot reach its database: nothing was done; the call can be repeated (a payment with the same TranId meets the duplicate check).'),
    headers: retryAfter('Seconds to wait before trying again.'),
  },
};

export const notFound = { 404: problem('No data found.') };

/**
 * The content type the OpenAPI document gives request bodies: the spec's. Bodies are read in
 * any JSON type, as the original ASP.NET Core service reads them (json-bodies.ts), but a document
 * listing several makes some client generators send none at all (orval: every call a 415).
 */
export const JSON_CONSUMES = ['application/json-patch+json'];

/**
 * PaymentResult and ProcessStatus, as the spec's integer enums: typed clients get the closed set
 * (ProcessStatus has no 3). Values and names: docs/decisions.md, "Result enums".
 */
export const PaymentResultWire = (description: string) => Type.Integer({ format: 'int32', enum: [1, 2, 3, 4, 5, 6], description });
export const ProcessStatusWire = (description: string) => Type.Integer({ format: 'int32', enum: [1, 2, 4, 5, 6, 7, 8, 9, 10, 11], description });

/** Non-empty text with a maximum length. */
export function Text(maxLength?: number, extra: Record<string, unknown> = {}) {
  return Type.String(maxLength === undefined ? extra : { maxLength, ...extra });
}

/**
 * What a uuid field the contract does not make nullable says for "none" (the original's default
 * Guid): typed clients read the field into a non-nullable Guid.
 */
export const EMPTY_GUID = '00000000-0000-0000-0000-000000000000';

export const Guid = (extra: Record<string, unknown> = {}) => Type.String({ format: 'uuid', ...extra });

/** A date-time in ISO 8601 UTC: 2026-11-21T17:30:00.000Z */
export function isoUtc(date: Date): string {
  return date.toISOString();
}
