import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Rule } from '../../domain/rules.ts';
import { canonicalize, declaresArray, type JsonSchema, repeatedParameter } from './case-insensitive.ts';
import { utf8Text } from '../../platform/utf8-text.ts';
import { ApiValidationError } from './problems.ts';

/**
 * JSON bodies as ASP.NET Core accepts them: application/json-patch+json, application/json,
 * text/json and any application/*+json. Property names bind case-insensitively, nulls count as
 * omitted (see case-insensitive.ts); query parameter names bind case-insensitively too.
 */
export function acceptJsonBodies(app: FastifyInstance) {
  const fastifyParse = app.getDefaultJsonParser('error', 'error');
  // Fastify's parser answers a `__proto__` key (refused: prototype pollution) like broken JSON;
  // valid JSON that it refused had such a key, and the partner is told so.
  const parse = (request: FastifyRequest, bytes: Buffer, done: (err: Error | null, body?: unknown) => void) => {
    const body = utf8Text(bytes);
    if (body === undefined) {
      return done(new ApiValidationError([{ code: Rule.InvalidRequest, field: 'body', message: 'The request body is not UTF-8 text (JSON is read as UTF-8 only).' }]), undefined);
    }
    // A call that takes no body (DELETE /api/paylink, ...) ignores an empty one, as ASP.NET Core
    // does: many clients send their JSON Content-Type on every request.
    if (!request.routeOptions.schema?.body && body.trim() === '') return done(null, undefined);
    fastifyParse(request, body, (error, value) => {
      if ((error as { code?: string } | null)?.code === 'FST_ERR_CTP_INVALID_JSON_BODY' && isJson(body)) {
        const message = "The request body has a '__proto__' or 'constructor.prototype' key, which is refused (prototype pollution).";
        return done(new ApiValidationError([{ code: Rule.InvalidRequest, field: 'body', message }]), undefined);
      }
      done(error, value);
    });
  };
  // Surface A reads JSON only: anything else is 415.
  app.removeContentTypeParser(['text/plain', 'application/json']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, parse);
  app.addContentTypeParser('text/json', { parseAs: 'buffer' }, parse);
  // Matched against the whole header: parameters such as `; charset=utf-8` may follow.
  app.addContentTypeParser(/^application\/[\w.-]+\+json(\s*;.*)?$/i, { parseAs: 'buffer' }, parse);
  app.addHook('preValidation', async (request) => {
    // No array of the API holds more than MAX_BODY_ARRAY_ITEMS items. A longer one is refused
    // before anything reads its items: the schema check, which reports every error, went through
    // all of them, and 350,000 empty lines (1 MiB) ran the process out of memory (an audit of
    // costly inputs). The answer is the one the schema gives for too many lines.
    const long = findLongArray(request.body, MAX_BODY_ARRAY_ITEMS);
    if (long !== undefined) {
      const field = long || 'body';
      throw new ApiValidationError([{ code: Rule.OutOfRange, field, message: `'${field}' may have at most ${MAX_BODY_ARRAY_ITEMS} items.` }]);
    }
    // No request of the API nests deeper than a few levels; thousands of levels (which fit in
    // 1 MiB) would overflow recursive code further on (JSON.stringify of a jsonb column): a 500.
    if (nestedDeeperThan(request.body, MAX_BODY_DEPTH)) {
      throw new ApiValidationError([{ code: Rule.InvalidRequest, field: 'body', message: `The request body nests arrays and objects deeper than ${MAX_BODY_DEPTH} levels.` }]);
    }
    // Text PostgreSQL cannot store as given (U+0000, a lone surrogate): refused here, naming the
    // field, for every route.
    const unstorable = [findUnstorableText(request.body, 'body'), findUnstorableText(request.query, 'query')].find(Boolean);
    if (unstorable) {
      const { path, nul } = unstorable;
      const message = nul ? `'${path}' must not contain a NUL character.` : `'${path}' must be valid Unicode text (it holds a lone surrogate, such as \\ud800).`;
      throw new ApiValidationError([{ code: Rule.InvalidFormat, field: path, message }]);
    }
    const schema = request.routeOptions.schema;
    if (!schema) return;
    if (schema.body && request.body !== undefined) request.body = refuseWrongJsonTypes(canonicalize(request.body, schema.body), schema.body as JsonSchema, 'body');
    if (schema.querystring && request.query) {
      const repeated = repeatedParameter(request.query, schema.querystring);
      if (repeated) throw new ApiValidationError([{ code: Rule.InvalidType, field: repeated, message: `'${repeated}' is given more than once.` }]);
      request.query = refuseWrongJsonTypes(canonicalize(request.query, schema.querystring), schema.querystring as JsonSchema, 'query');
    }
  });
}

/**
 * The validator coerces types as query strings need (`?PageSize=10` is text; `?a=1` is one item
 * of an array). A JSON body has types of its own, and ASP.NET Core's System.Text.Json binds them
 * strictly: the coercion took `"Recurring": true` as 1 (a daily donation), `["x"]` as "x",
 * `"FirstName": false` as "false" and `"PayFee": 1` as true (a robustness audit). A value of the
 * wrong JSON type is replaced by an empty object, which the validator then reports as of the
 * wrong type (1004): a scalar where an array belongs, an array or a boolean where a scalar of
 * another type belongs, a number where a boolean belongs, and text that is not a plain integer
 * (or decimal) where a number belongs (ASP.NET Core reads "12" as 12, not " 1.00 " or "0x10";
 * query strings are held to that too). Kept, as before: a number where text belongs (25 as
 * "25"), and "true"/"false" where a boolean belongs.
 */
function refuseWrongJsonTypes(value: unknown, schema: JsonSchema, part: 'body' | 'query'): unknown {
  if (!value || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    if (!schema.items) return value;
    // An array's items as a property's value: `[["a"]]` or `[true]` where text belongs is refused, not unwrapped.
    const type = scalarType(schema.items);
    return value.map((v) => (v !== null && type && wrongType(v, type, part) ? {} : refuseWrongJsonTypes(v, schema.items!, part)));
  }
  if (!schema.properties) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const sub = schema.properties[key];
    if (!sub || v === null) {
      out[key] = v;
    } else if (declaresArray(sub)) {
      out[key] = part === 'body' && typeof v !== 'object' ? {} : refuseWrongJsonTypes(v, sub, part);
    } else {
      const type = scalarType(sub);
      out[key] = type && wrongType(v, type, part) ? {} : refuseWrongJsonTypes(v, sub, part);
    }
  }
  return out;
}

type ScalarType = 'string' | 'integer' | 'number' | 'boolean';
const SCALARS: readonly string[] = ['string', 'integer', 'number', 'boolean'];

/** The one scalar type a (property) schema takes besides null, if it is one. */
function scalarType(schema: JsonSchema): ScalarType | undefined {
  const types = new Set<string>();
  const collect = (s: JsonSchema) => {
    for (const t of Array.isArray(s.type) ? s.type : s.type ? [s.type] : []) if (t !== 'null') types.add(t);
    for (const variant of [...(s.anyOf ?? []), ...(s.oneOf ?? [])]) collect(variant);
  };
  collect(schema);
  const [only] = types;
  return types.size === 1 && SCALARS.includes(only!) ? (only as ScalarType) : undefined;
}

function wrongType(value: unknown, type: ScalarType, part: 'body' | 'query'): boolean {
  if (part === 'query') {
    // Query values are text: only the number rules apply (repeats are refused before this).
    return typeof value === 'string' && (type === 'integer' || type === 'number') && !plainNumber(value, type);
  }
  if (typeof value === 'object') return true;
  switch (type) {
    case 'string':
      return typeof value === 'boolean';
    case 'boolean':
      return typeof value === 'number';
    default:
      return typeof value === 'boolean' || (typeof value === 'string' && !plainNumber(value, type));
  }
}

/** "12", "-3" (and for a number, "12.50"): what ASP.NET Core reads from text into a number. */
function plainNumber(text: string, type: 'integer' | 'number'): boolean {
  return type === 'integer' ? /^-?\d+$/.test(text) : /^-?\d+(\.\d+)?$/.test(text);
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
/** The longest array any request of the API may hold (Transactions, PaymentLines: 100 lines). */
export const MAX_BODY_ARRAY_ITEMS = 100;

/** The path of the first array longer than `max` in a body ('' for the body itself), if any. */
function findLongArray(value: unknown, max: number): string | undefined {
  const stack: [unknown, string][] = [[value, '']];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const [v, path] = item;
    if (Array.isArray(v)) {
      if (v.length > max) return path;
      for (let i = v.length - 1; i >= 0; i--) if (v[i] && typeof v[i] === 'object') stack.push([v[i], `${path}[${i}]`]);
    } else if (v && typeof v === 'object') {
      for (const [key, child] of Object.entries(v)) if (child && typeof child === 'object') stack.push([child, path ? `${path}.${key}` : key]);
    }
  }
  return undefined;
}

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
