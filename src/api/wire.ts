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
  },
  { $id: 'ProblemDetails', title: 'ProblemDetails', description: 'RFC 9457 problem details (application/problem+json).' },
);

const problem = (description: string) => ({ ...Type.Ref('ProblemDetails'), description });

/** The error responses every authenticated route can give, for the OpenAPI document. */
export const authenticatedErrors = {
  400: { ...BrokenRules, description: 'Validation failed: one BrokenRule per broken field or rule.' },
  401: problem('The AccessToken header is missing, unknown or expired.'),
  413: problem('The body is larger than 1 MiB.'),
  415: problem('The content type is not a JSON type.'),
  429: problem('Too many requests.'),
  500: problem('Internal error; nothing internal is revealed.'),
};

export const notFound = { 404: problem('No data found.') };

/** JSON content types accepted for request bodies, as the original ASP.NET Core service does. */
export const JSON_CONSUMES = ['application/json-patch+json', 'application/json', 'text/json', 'application/*+json'];

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
