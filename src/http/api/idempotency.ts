import type { FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import { Type } from 'typebox';
import { Rule } from '../../domain/rules.ts';
import { DatabaseUnavailableError, findError } from '../../platform/errors.ts';
import { type Claim, type IdempotencyService, MAX_KEY_LENGTH, readIdempotencyKey, requestFingerprint } from '../../modules/idempotency/idempotency-service.ts';
import { ApiValidationError, sendProblem } from './problems.ts';

/**
 * Idempotency-Key on surface A (issue 29). A route with a side effect takes the header by one line
 * in its options, `config: { idempotent: true }` (or with the route's own `changedNothing`); the
 * hooks below do the rest, and the OpenAPI document gets the header, the `Idempotent-Replayed`
 * response header and the 409 and 422 answers. Without the header a request runs as it always did.
 */

export interface IdempotentRoute {
  /**
   * Whether a failure (a 5xx) surely changed nothing, so that the key may be used again. Default:
   * the database refused the request's statements before any of them could take effect. Any
   * other failure may have taken effect: the key is then not run again.
   */
  changedNothing?(error: unknown): boolean;
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route honours Idempotency-Key (src/http/api/idempotency.ts). */
    idempotent?: true | IdempotentRoute;
  }
}

export const IDEMPOTENCY_KEY_HEADER = 'Idempotency-Key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';

/** The database refused the statements before they were applied: the default for routes whose writes are one statement or one transaction. */
function refusedByDatabase(error: unknown): boolean {
  const unavailable = findError(error, DatabaseUnavailableError);
  return unavailable !== undefined && !unavailable.mayHaveApplied;
}

interface RequestState {
  claim?: Claim;
  error?: unknown;
  /** Answered from the key (a replay or a refusal): nothing to store. */
  answered?: boolean;
}

const states = new WeakMap<FastifyRequest, RequestState>();

/**
 * The request's secrets as the fingerprint may hold them: a card number as its first six and
 * last four digits, an account number as its last four, a CVV and a secret the partner chooses
 * (a webhook's AccessToken) by their length only. The fingerprint is stored, and a hash of a card
 * number whose BIN and last four are known is reversed in seconds, of a chosen word from a list.
 * (Secrets the service issues, a pay link's id or API key, are too long to guess: they count whole.)
 */
function withoutSecrets(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutSecrets);
  if (!value || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [name, v] of Object.entries(value)) {
    const text = typeof v === 'string' ? v : undefined;
    switch (text === undefined ? '' : name.toLowerCase()) {
      case 'cardnum': {
        const digits = text!.replace(/\D/g, '');
        out[name] = { first6: digits.slice(0, 6), last4: digits.slice(-4), length: text!.length };
        break;
      }
      case 'checkaccountnumber':
        out[name] = { last4: text!.slice(-4), length: text!.length };
        break;
      case 'cvnum':
      case 'accesstoken':
      case 'password':
        out[name] = { length: text!.length };
        break;
      default:
        out[name] = withoutSecrets(v);
    }
  }
  return out;
}

function headerValues(request: FastifyRequest): string[] {
  const raw = request.raw.rawHeaders;
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === 15 && raw[i]!.toLowerCase() === 'idempotency-key') values.push(raw[i + 1]!);
  return values;
}

/** preValidation: a malformed key is a 400 before anything else of the request is judged. */
async function readKey(request: FastifyRequest): Promise<void> {
  if (request.headers['idempotency-key'] === undefined) return;
  const reading = readIdempotencyKey(headerValues(request));
  if (reading && 'invalid' in reading) {
    throw new ApiValidationError([{ code: Rule.IdempotencyKeyInvalid, field: IDEMPOTENCY_KEY_HEADER, message: `'${IDEMPOTENCY_KEY_HEADER}' ${reading.invalid}.` }]);
  }
}

function keyOf(request: FastifyRequest): string | undefined {
  if (request.headers['idempotency-key'] === undefined) return undefined;
  const reading = readIdempotencyKey(headerValues(request));
  return reading && 'key' in reading ? reading.key : undefined;
}

const MISMATCH = `This ${IDEMPOTENCY_KEY_HEADER} was used for another request (method, path, query or body): a key stands for one request. Send a new request with a new key.`;
const IN_FLIGHT = `A request with this ${IDEMPOTENCY_KEY_HEADER} is still being processed. Send it again after Retry-After to get its answer.`;
const STOPPED =
  `The request with this ${IDEMPOTENCY_KEY_HEADER} was not answered: it stopped (a server stopped or failed while it ran), and whether it took effect is not known. ` +
  'It is not run again with this key. Do not repeat it with another key before checking: a payment with the same TranId is answered with the payment that holds it, and a held payment is resolved by an operator.';

function hooks(service: IdempotencyService, route: IdempotentRoute) {
  const changedNothing = route.changedNothing ?? refusedByDatabase;

  const claim = async (request: FastifyRequest, reply: FastifyReply) => {
    const key = keyOf(request);
    if (key === undefined) return;
    const fingerprint = requestFingerprint({
      method: request.method,
      route: request.routeOptions.url ?? request.url,
      query: withoutSecrets(request.query),
      body: withoutSecrets(request.body),
    });
    const begun = await service.begin(request.partner.id, key, fingerprint);
    switch (begun.kind) {
      case 'run':
        states.set(request, { claim: begun.claim });
        return;
      case 'replay':
        states.set(request, { answered: true });
        return reply.code(begun.answer.status).header(REPLAYED_HEADER, 'true').type(begun.answer.contentType).send(begun.answer.body);
      case 'mismatch':
        states.set(request, { answered: true });
        return sendProblem(reply, 422, MISMATCH);
      case 'in-flight':
        states.set(request, { answered: true });
        reply.header('Retry-After', String(begun.retryAfterSeconds));
        return sendProblem(reply, 409, IN_FLIGHT);
      case 'stopped':
        states.set(request, { answered: true });
        return sendProblem(reply, 409, STOPPED);
    }
  };

  const rememberError = async (request: FastifyRequest, _reply: FastifyReply, error: unknown) => {
    const state = states.get(request);
    if (state?.claim) state.error = error;
  };

  /** The answer about to be sent ends the key: stored, released (nothing was done), or unknown. */
  const end = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const state = states.get(request);
    const claim = state?.claim;
    if (!claim) return payload;
    state.claim = undefined;
    const status = reply.statusCode;
    if (status === 400) {
      await service.release(claim);
    } else if (status >= 500) {
      if (changedNothing(state.error)) await service.release(claim);
      else await service.markUnknown(claim);
    } else if (typeof payload === 'string' || Buffer.isBuffer(payload)) {
      const contentType = String(reply.getHeader('content-type') ?? 'application/json; charset=utf-8');
      await service.finish(claim, { status, contentType, body: payload.toString() });
    } else {
      // A streamed answer cannot be stored: the request ran, so the key is not run again.
      await service.markUnknown(claim);
    }
    return payload;
  };

  return { readKey, claim, rememberError, end };
}

const asArray = <T>(v: T | T[] | undefined): T[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);

const KeyHeaders = Type.Object({
  [IDEMPOTENCY_KEY_HEADER]: Type.Optional(
    Type.String({
      minLength: 1,
      // The quoted form may escape each character: 255 of them take up to 512.
      maxLength: 2 * MAX_KEY_LENGTH + 2,
      description:
        `1 to ${MAX_KEY_LENGTH} printable ASCII characters (a UUID is recommended), or the same as a quoted string ("..."). ` +
        'A repeated request with the key and the same request (method, path, query, body) gets the first answer, byte for byte, with ' +
        `${REPLAYED_HEADER}: true, and does nothing else; another request with the key is 422; while the first runs, 409 with Retry-After. ` +
        'Keys are kept 24 hours (IDEMPOTENCY_TTL), per partner.',
    }),
  ),
});

const problem = (description: string) => ({ ...Type.Ref('ProblemDetails'), description });

/**
 * The answers a replay may give: those stored, the handlers' answers below 500 but 400 (a 2xx, a
 * 404). 401, 413, 415 and 429 come before the key is read.
 */
const REPLAYABLE = /^(2\d\d|404)$/;

/** The route's schema as the OpenAPI document shows it: the header, the replay header on what may be replayed, 409 and 422. */
function documented(schema: Record<string, unknown>): Record<string, unknown> {
  const responses: Record<string, unknown> = {};
  for (const [status, response] of Object.entries((schema.response as Record<string, Record<string, unknown>> | undefined) ?? {})) {
    responses[status] = REPLAYABLE.test(status)
      ? { ...response, headers: { ...(response.headers as object), [REPLAYED_HEADER]: { type: 'string', enum: ['true'], description: `"true" when this is the stored answer of an earlier request with the same ${IDEMPOTENCY_KEY_HEADER}.` } } }
      : response;
  }
  return {
    ...schema,
    headers: KeyHeaders,
    response: {
      ...responses,
      409: {
        ...problem(`A request with this ${IDEMPOTENCY_KEY_HEADER} is still running (with Retry-After: send it again then), or stopped without an answer (without Retry-After: it is not run again).`),
        headers: { 'Retry-After': { type: 'integer', description: 'Seconds to wait before sending the request again.' } },
      },
      422: problem(`This ${IDEMPOTENCY_KEY_HEADER} was used for another request.`),
    },
  };
}

/**
 * Makes every route of `app` whose config has `idempotent` honour Idempotency-Key. Register it
 * before the routes.
 */
export function idempotencyKeys(app: FastifyInstance, service: IdempotencyService): void {
  app.addHook('onRoute', (route: RouteOptions) => {
    const option = route.config?.idempotent;
    if (!option) return;
    const h = hooks(service, option === true ? {} : option);
    route.preValidation = [...asArray(route.preValidation), h.readKey];
    route.preHandler = [...asArray(route.preHandler), h.claim];
    route.onError = [...asArray(route.onError), h.rememberError];
    route.onSend = [...asArray(route.onSend), h.end];
    (route.config as Record<string, unknown>).swaggerTransform = ({ schema, url }: { schema: Record<string, unknown>; url: string }) => ({ schema: documented(schema), url });
  });
}
