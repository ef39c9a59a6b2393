import type { FastifyInstance } from 'fastify';
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
    const schema = request.routeOptions.schema;
    if (!schema) return;
    if (schema.body && request.body !== undefined) request.body = canonicalize(request.body, schema.body);
    if (schema.querystring && request.query) request.query = canonicalize(request.query, schema.querystring);
  });
}
