import { DatabaseUnavailableError, InvalidStoredValueError } from '../errors.ts';

/**
 * What a driver's error says about the statement and about the database, said once, here, in the
 * service's error vocabulary (`translateDatabaseError`, applied to every call of the drivers in
 * database.ts): an unreachable database, and whether the statement may still have taken effect,
 * is a DatabaseUnavailableError; a value the database cannot store is an InvalidStoredValueError.
 * The query builder wraps what the driver threw (`cause`): look it up with `findError`.
 */

/** Connection-level errors: the database could not be reached, or the connection ended. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ETIMEDOUT', 'EPIPE']);
/** Raised before a connection existed: no statement was sent on it. */
const NEVER_CONNECTED_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);
const NEVER_CONNECTED_MESSAGES = [
  /timeout exceeded when trying to connect/i,
  // pg refuses a query on a client whose connection already failed, without sending it.
  /not queryable/i,
];
const CONNECTION_LOST_MESSAGES = [/connection terminated/i, /terminating connection/i];
/**
 * SQLSTATE classes that mean the connection or the server failed, not the statement: 08
 * connection exception, 57 operator intervention (57P01 admin shutdown can come after a commit,
 * while it waits for a synchronous standby), 58 system error, XX internal error.
 */
const AMBIGUOUS_CLASSES = new Set(['08', '57', '58', 'XX']);
/**
 * Of those, the ones that say the database is going away or not yet accepting connections; and
 * two refusals at connect time: too many connections (53300), and a database closed to
 * connections (55000 "not currently accepting connections", ALTER DATABASE ... ALLOW_CONNECTIONS
 * false), which answered 500 with a stack trace on every call (an audit of the logs).
 */
const UNAVAILABLE_STATES = /^(08...|57P0[123]|53300)$/;
const CLOSED_DATABASE = { state: '55000', message: /not currently accepting connections/i };

/** The error and the errors it wraps, outermost first. */
function chain(err: unknown): { code?: unknown; message?: unknown; errors?: unknown }[] {
  const out: { code?: unknown; message?: unknown; errors?: unknown }[] = [];
  let e: unknown = err;
  for (let depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    out.push(e as { code?: unknown; message?: unknown });
    e = (e as { cause?: unknown }).cause;
  }
  return out;
}

const sqlState = (code: unknown): string | undefined => (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) ? code : undefined);

/** The PostgreSQL SQLSTATE of an error, wherever the driver or Drizzle put it. */
export function sqlStateOf(err: unknown): string | undefined {
  for (const e of chain(err)) {
    const state = sqlState(e.code);
    if (state) return state;
  }
  return undefined;
}
const messageOf = (e: { message?: unknown }) => (typeof e.message === 'string' ? e.message : '');

/** The database is unreachable or its connection ended: the request may be tried again later. */
export function isDatabaseUnavailable(err: unknown): boolean {
  return chain(err).some((e) => {
    const state = sqlState(e.code);
    if (state === CLOSED_DATABASE.state) return CLOSED_DATABASE.message.test(messageOf(e));
    if (state) return UNAVAILABLE_STATES.test(state);
    if (typeof e.code === 'string' && UNREACHABLE_CODES.has(e.code)) return true;
    const message = messageOf(e);
    return [...NEVER_CONNECTED_MESSAGES, ...CONNECTION_LOST_MESSAGES].some((m) => m.test(message));
  });
}

/**
 * Whether a failed statement surely did not take effect: the server refused it (an SQLSTATE that
 * is not about the connection or the server itself), or no connection was ever made. A lost
 * connection, or a server that failed around a commit, may have committed it.
 */
export function surelyNotApplied(err: unknown): boolean {
  for (const e of chain(err)) {
    const state = sqlState(e.code);
    if (state) return !AMBIGUOUS_CLASSES.has(state.slice(0, 2));
    if (typeof e.code === 'string' && NEVER_CONNECTED_CODES.has(e.code)) return true;
    if (NEVER_CONNECTED_MESSAGES.some((m) => m.test(messageOf(e)))) return true;
  }
  return false;
}

/** PostgreSQL's "data exception" codes that bad input causes (class 22). */
const INVALID_INPUT = new Set(['22P02', '22021', '22P05', '22003', '22007', '22008', '22009', '22001', '22023', '22004']);

/** A driver's error in the service's vocabulary (see the top of this file); any other error as it is. */
export function translateDatabaseError(err: unknown): unknown {
  if (err instanceof DatabaseUnavailableError || err instanceof InvalidStoredValueError) return err;
  if (isDatabaseUnavailable(err)) {
    const code = (err as { code?: unknown } | null)?.code;
    return new DatabaseUnavailableError({ mayHaveApplied: !surelyNotApplied(err), driverCode: sqlStateOf(err) ?? (typeof code === 'string' ? code : undefined), cause: err });
  }
  const state = sqlStateOf(err);
  if (state && INVALID_INPUT.has(state)) return new InvalidStoredValueError(state, err);
  return err;
}

/** What a failed statement was, for metrics: the database unreachable, a value it cannot store, a constraint it refused (class 23), or anything else it refused. */
export type QueryErrorKind = 'unavailable' | 'invalid_input' | 'constraint' | 'other';

/** The kind of a translated failure; undefined for an error that is not the database's (one thrown inside a transaction's callback). */
export function queryErrorKind(translated: unknown): QueryErrorKind | undefined {
  if (translated instanceof DatabaseUnavailableError) return 'unavailable';
  if (translated instanceof InvalidStoredValueError) return 'invalid_input';
  const state = sqlStateOf(translated);
  if (state === undefined) return undefined;
  return state.startsWith('23') ? 'constraint' : 'other';
}
