import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../domain/error-codes.ts';
import { ValidationError } from '../services/errors.ts';
import { canonicalize } from './case-insensitive.ts';

/**
 * JSON bodies as ASP.NET Core accepts them: application/json-patch+json, application/json,
 * text/json and any application/*+json. Property names bind case-insensitively, nulls count as
 * omitted (see case-insensitive.ts); query parameter names bind case-insensitively too.
 */
export function acceptJsonBodies(app: FastifyInstance) {
  const parse = app.getDefaultJsonParser('error', 'error');
  // Surface A reads JSON only: anything else is 415.
  app.removeContentTypeParser(['text/plain']);
  app.addContentTypeParser('text/json', { parseAs: 'string' }, parse);
  // Matched against the whole header: parameters such as `; charset=utf-8` may follow.
  app.addContentTypeParser(/^application\/[\w.-]+\+json(\s*;.*)?$/i, { parseAs: 'string' }, parse);
  app.addHook('preValidation', async (request) => {
    // PostgreSQL text cannot hold U+0000: refuse it here, naming the field, for every route.
    const nul = [findNul(request.body, 'body'), findNul(request.query, 'query')].find(Boolean);
    if (nul) throw new ValidationError([{ code: ErrorCode.InvalidFormat, field: nul, message: `'${nul}' must not contain a NUL character.` }]);
    const schema = request.routeOptions.schema;
    if (!schema) return;
    if (schema.body && request.body !== undefined) request.body = canonicalize(request.body, schema.body);
    if (schema.querystring && request.query) request.query = canonicalize(request.query, schema.querystring);
  });
}

/** The path of the first string holding U+0000 (`Transactions[0].Amount`), if any. */
function findNul(value: unknown, root: string, path = ''): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || root : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const hit = findNul(value[i], root, `${path}[${i}]`);
      if (hit) return hit;
    }
    return undefined;
  }
  if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      const hit = key.includes('\u0000') ? path || root : findNul(v, root, path ? `${path}.${key}` : key);
      if (hit) return hit;
    }
  }
  return undefined;
}
