import type { FastifyInstance } from 'fastify';
import { ErrorCode } from '../domain/error-codes.ts';
import { ValidationError } from '../services/errors.ts';
import { canonicalize, declaresArray, type JsonSchema, repeatedParameter } from './case-insensitive.ts';

/**
 * JSON bodies as ASP.NET Core accepts them: application/json-patch+json, application/json,
 * text/json and any application/*+json. Property names bind case-insensitively, nulls count as
 * omitted (see case-insensitive.ts); query parameter names bind case-insensitively too.
 */
export function acceptJsonBodies(app: FastifyInstance) {
  const fastifyParse = app.getDefaultJsonParser('error', 'error');
  // Fastify's parser answers a `__proto__` key (refused: prototype pollution) like broken JSON;
  // valid JSON that it refused had such a key, and the partner is told so.
  const parse: typeof fastifyParse = (request, body, done) => {
    // A call that takes no body (DELETE /api/paylink, ...) ignores an empty one, as ASP.NET Core
    // does: many clients send their JSON Content-Type on every request.
    if (!request.routeOptions.schema?.body && body.toString().trim() === '') return done(null, undefined);
    fastifyParse(request, body, (error, value) => {
      if ((error as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' && isJson(body)) {
        const message = "The request body has a '__proto__' or 'constructor.prototype' key, which is refused (prototype pollution).";
        return done(new ValidationError([{ code: ErrorCode.InvalidRequest, field: 'body', message }]), undefined);
      }
      done(error, value);
    });
  };
  // Surface A reads JSON only: anything else is 415.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, parse);
  app.addContentTypeParser('text/json', { parseAs: 'string' }, parse);
  // Matched against the whole header: parameters such as `; charset=utf-8` may follow.
  app.addContentTypeParser(/^application\/[\w.-]+\+json(\s*;.*)?$/i, { parseAs: 'string' }, parse);
  app.addHook('preValidation', async (request) => {
    // No request of the API nests deeper than a few levels; thousands of levels (which fit in
    // 1 MiB) would overflow recursive code further on (JSON.stringify of a jsonb column): a 500.
    if (nestedDeeperThan(request.body, MAX_BODY_DEPTH)) {
      throw new ValidationError([{ code: ErrorCode.InvalidRequest, field: 'body', message: `The request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels.` }]);
    }
    // Text PostgreSQL cannot store as given (U+0000, a lone surrogate): refused here, naming the
    // field, for every route.
    const unstorable = [findUnstorableText(request.body, 'body'), findUnstorableText(request.query, 'query')].find(Boolean);
    if (unstorable) {
      const { path, nul } = unstorable;
      const message = nul ? `'${path}' must not contain a NUL character.` : `'${path}' must be valid Unicode text (it holds a lone surrogate, such as \\ud800).`;
      throw new ValidationError([{ code: ErrorCode.InvalidFormat, field: path, message }]);
    }
    const schema = request.routeOptions.schema;
    if (!schema) return;
    if (schema.body && request.body !== undefined) request.body = refuseScalarsForArrays(canonicalize(request.body, schema.body), schema.body as JsonSchema);
    if (schema.querystring && request.query) {
      const repeated = repeatedParameter(request.query, schema.querystring);
      if (repeated) throw new ValidationError([{ code: ErrorCode.InvalidType, field: repeated, message: `'${repeated}' is given more than once.` }]);
      request.query = canonicalize(request.query, schema.querystring);
    }
  });
}

/**
 * The validator coerces a lone value to a one-item array (query strings need it: `?a=1` and
 * `?a=1&a=2`), which in a JSON body turned `"Transactions": "x"` into a complaint about
 * `Transactions[0]`. A JSON body's array must be an array: a scalar where the schema has one is
 * replaced by an empty object, which the validator reports as "'Transactions' must be an array".
 */
function refuseScalarsForArrays(value: unknown, schema: JsonSchema): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) return schema.items ? value.map((v) => refuseScalarsForArrays(v, schema.items!)) : value;
  if (!schema.properties) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const sub = schema.properties[key];
    out[key] = !sub ? v : declaresArray(sub) && v !== null && typeof v !== 'object' ? {} : refuseScalarsForArrays(v, sub);
  }
  return out;
}

function isJson(body: string | Buffer): boolean {
  try {
    JSON.parse(body.toString());
    return true;
  } catch {
    return false;
  }
}

/** Nesting allowed in a JSON body: far more than any request of the spec needs (3 or 4 levels). */
export const MAX_BODY_DEPTH = 32;

/** Whether arrays and objects nest more than `max` levels deep (iterative: any depth is safe). */
function nestedDeeperThan(value: unknown, max: number): boolean {
  const stack: [unknown, number][] = [[value, 0]];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, depth] = item;
    if (!v || typeof v !== 'object') continue;
    if (depth >= max) return true;
    for (const child of Array.isArray(v) ? v : Object.values(v)) if (child && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}

/**
 * The path of the first string (`Transactions[0].Amount`) that the database cannot store as
 * given, if any: one holding U+0000, which PostgreSQL text cannot hold, or a lone surrogate
 * (`"\ud800"` is valid JSON), which it would store as U+FFFD, so that the answer, the record and
 * a later duplicate check would disagree. Iterative, in document order: a body of arrays nested
 * thousands deep (well under the 1 MiB limit) must not overflow the call stack (a RangeError
 * would be a 500).
 */
function findUnstorableText(value: unknown, root: string): { path: string; nul: boolean } | undefined {
  const bad = (text: string) => (text.includes('\u0000') ? { nul: true } : text.isWellFormed() ? undefined : { nul: false });
  const stack: [unknown, string][] = [[value, '']];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, path] = item;
    if (typeof v === 'string') {
      const found = bad(v);
      if (found) return { path: path || root, ...found };
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`]);
    } else if (v && typeof v === 'object') {
      const entries = Object.entries(v);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        // A bad property name names the object that holds it.
        stack.push(bad(key) ? [key, path] : [child, path ? `${path}.${key}` : key]);
      }
    }
  }
  return undefined;
}
