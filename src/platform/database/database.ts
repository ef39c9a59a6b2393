import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { PGlite, types as pgliteTypes } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import pg from 'pg';
import * as schema from './schema/index.ts';
import { migrate } from './migrate.ts';
import { drizzleNodePostgres, drizzlePglite } from './drizzle.ts';
import { makePrivateDir } from '../private-dir.ts';
import { type RowCursor, openCursor } from './cursor.ts';
import { openCopyOut } from './copy-out.ts';
import type { Readable } from 'node:stream';

export type { RowCursor } from './cursor.ts';
import { type Tracing, tracing } from '../tracing.ts';
import { type QueryErrorKind, queryErrorKind, translateDatabaseError } from './errors.ts';

export type Schema = typeof schema;
export type Db = PgDatabase<PgQueryResultHKT, Schema>;
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** Either the database or an open transaction: repositories accept both. */
export type DbOrTx = Db | Tx;

/** Raw SQL access, for migrations, maintenance, hot read paths and tests. */
export interface SqlClient {
  exec(sql: string): Promise<void>;
  /**
   * `prepare`: run it as a named prepared statement, parsed and analysed once per connection
   * instead of on every call (PostgreSQL server only; PGlite runs it as usual). Only for a
   * fixed query text or one of a bounded set of shapes: every distinct text stays prepared on
   * every pooled connection. And only where any plan is a good one (look-ups by a key): after
   * five runs PostgreSQL may keep a generic plan made for the table's size then, until the table
   * is analysed again (with autovacuum off, never).
   */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions): Promise<T[]>;
}

export interface QueryOptions {
  prepare?: boolean;
}

export interface Store {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Db;
  readonly sql: SqlClient;
  /**
   * Runs `fn` while holding a PostgreSQL advisory lock on one dedicated connection, so that
   * processes sharing a database take turns. PGlite has a single connection: `fn` just runs.
   */
  withAdvisoryLock<T>(lockId: number, fn: (sql: SqlClient) => Promise<T>): Promise<T>;
  ping(): Promise<void>;
  /** Calls `listener` whenever a new connection to the database is made (PostgreSQL server only). */
  onConnect(listener: () => void): void;
  close(): Promise<void>;
  /** The connections now, for metrics: the pg pool's; PGlite's one, busy while a call runs on it. */
  poolState(): PoolState;
  /** Calls `listener` once for each failed statement, with what kind of failure it was (metrics count them). */
  onQueryError(listener: (kind: QueryErrorKind) => void): void;
  /** PGlite only: the whole data directory as a tarball (tests start from a migrated copy). */
  dump?(): Promise<Blob>;
  /**
   * PostgreSQL server only: a query's rows read in batches from a server-side cursor on a
   * connection of its own (cursor.ts). PGlite, one connection that every request shares, has none.
   */
  openCursor?<T>(text: string, params: unknown[]): Promise<RowCursor<T>>;
  /**
   * PostgreSQL server only: `COPY (...) TO STDOUT` as a stream, after a setup statement, in a
   * read-only transaction on a connection of its own (copy-out.ts).
   */
  copyOut?(setup: { text: string; params: unknown[] }, copyText: string): Promise<Readable>;
  /**
   * PostgreSQL server only: calls `onNotify` for each NOTIFY on `channel`, heard on a connection
   * of its own that is made again when it is lost (and `onNotify` called then: a NOTIFY may have
   * been missed meanwhile). PGlite has none: its users poll.
   */
  listen?(channel: string, onNotify: () => void): { close(): Promise<void> };
}

export const PGLITE_EXTENSIONS = { pg_trgm };

export interface PoolState {
  /** The most connections the pool opens (DATABASE_POOL_SIZE; PGlite: 1). */
  max: number;
  /** Connections open now, idle or in use. */
  total: number;
  idle: number;
  /** Calls waiting for a connection. */
  waiting: number;
}

/**
 * What the wrapped calls of a store report: failed statements (each error once, however many
 * wrapped calls it passes through), and, for PGlite, the calls in progress.
 */
class CallWatch {
  readonly #listeners: ((kind: QueryErrorKind) => void)[] = [];
  readonly #reported = new WeakSet<object>();
  inProgress = 0;

  onError(listener: (kind: QueryErrorKind) => void): void {
    this.#listeners.push(listener);
  }

  failed(original: unknown, translated: unknown): void {
    if (this.#listeners.length === 0 || typeof original !== 'object' || original === null || this.#reported.has(original)) return;
    this.#reported.add(original);
    const kind = queryErrorKind(translated);
    if (kind !== undefined) for (const listener of this.#listeners) listener(kind);
  }
}

/** A call's promise whose failure is said in the service's error vocabulary (errors.ts). */
function translated<T>(result: T, watch: CallWatch): T {
  if (!(result instanceof Promise)) return result;
  return result.catch((err: unknown) => {
    const translation = translateDatabaseError(err);
    watch.failed(err, translation);
    throw translation;
  }) as T;
}

/**
 * Makes the promise-returning methods of a driver object fail with translated errors: every
 * statement the service sends goes through one of them (callback and stream forms are left as
 * they are: the pool's own queries, and COPY). `countInProgress`: PGlite's calls, to tell
 * whether its one connection is busy.
 */
function translateFailures<T extends object>(target: T, methods: (keyof T & string)[], watch: CallWatch, countInProgress = false): T {
  for (const name of methods) {
    const method = (target[name] as (...args: unknown[]) => unknown).bind(target);
    (target as Record<string, unknown>)[name] = countInProgress
      ? (...args: unknown[]) => {
          watch.inProgress++;
          const done = () => void watch.inProgress--;
          const result = translated(method(...args), watch);
          if (result instanceof Promise) result.then(done, done);
          else done();
          return result;
        }
      : (...args: unknown[]) => translated(method(...args), watch);
  }
  return target;
}

/**
 * A client checked out of the pool gives itself back when its connection ends (the server went
 * away, an administrator ended it). A caller that loses track of it before releasing it would
 * otherwise keep it out of the pool for good: Drizzle's transaction sends BEGIN before its
 * try/finally, so a connection lost at that moment was never released, and after as many such
 * losses as the pool's size every request waited for a connection until it timed out. A release
 * after that one (the caller's own) does nothing.
 */
function releaseWhenConnectionEnds(pool: pg.Pool): void {
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as { connect: unknown }).connect = (callback?: unknown) => {
    if (callback !== undefined) return (pool.constructor.prototype.connect as (cb: unknown) => void).call(pool, callback);
    return connect().then((client) => {
      const release = client.release.bind(client);
      let released = false;
      const onEnd = () => give(new Error('the connection ended'));
      const give = (err?: Error | boolean) => {
        if (released) return;
        released = true;
        client.removeListener('end', onEnd);
        release(err);
      };
      client.once('end', onEnd);
      client.release = give;
      return client;
    });
  };
}

/** PostgreSQL's int8 and numeric arrive as strings from `pg`; dates stay Date objects. */
pg.types.setTypeParser(pg.types.builtins.INT8, (v) => Number(v));
/** A SQL date is a calendar day: kept as yyyy-MM-dd text, never a Date in the process's time zone. */
pg.types.setTypeParser(pg.types.builtins.DATE, (v) => v);

/**
 * Every connection turns synchronized sequential scans off. With them, a scan of a table larger
 * than a quarter of shared_buffers starts where the last scan of it stopped, not at its first
 * page; a charity name search that reads the directory in storage order and stops at its first
 * 201 matches then found other charities from one request to the next, and its pages repeated
 * and skipped charities (docs/decisions.md, "Charity directory").
 */
const SYNCHRONIZED_SCANS_OFF = '-c synchronize_seqscans=off';

/**
 * Every connection reads and writes dates and times as the code expects: ISO output (dates come
 * back as yyyy-MM-dd text, timestamps as text `new Date` reads), in UTC. A database, role or
 * PGOPTIONS with another DateStyle made every AccessToken fail at once (an unreadable expiry) and
 * every recurring charge throw (a time audit); these come after PGOPTIONS, so they win.
 */
const DATE_TIME_SETTINGS = '-c DateStyle=ISO,MDY -c TimeZone=UTC -c IntervalStyle=postgres';

const SESSION_SETTINGS = `${SYNCHRONIZED_SCANS_OFF} ${DATE_TIME_SETTINGS}`;

function createPglite(options: { dataDir?: string; loadDataDir?: Blob | File }): Promise<PGlite> {
  return PGlite.create({
    dataDir: options.dataDir,
    loadDataDir: options.loadDataDir,
    extensions: PGLITE_EXTENSIONS,
    // As with pg (above): a date read by raw SQL is yyyy-MM-dd text. PGlite made it a Date at UTC
    // midnight, which an operator's listing printed as the day before west of UTC (a time audit).
    parsers: { [pgliteTypes.DATE]: (value: string) => value },
    // PostgreSQL's default 128 MB of shared buffers is memory of this process here (WebAssembly),
    // touched as the database is used: 16 MB costs ~120 MB less resident memory at the same speed.
    postgresqlconf: ['shared_buffers = 16MB', 'synchronize_seqscans = off', "datestyle = 'iso, mdy'", "timezone = 'UTC'", "intervalstyle = 'postgres'"],
  });
}

export async function openPglite(options: { dataDir?: string; loadDataDir?: Blob | File } = {}): Promise<Store> {
  if (options.dataDir) makePrivateDir(options.dataDir, { ours: true });
  const client = await createPglite(options);
  const traces = tracing();
  if (traces) traceStatements(client, traces);
  const watch = new CallWatch();
  translateFailures(client, ['query', 'exec', 'transaction'], watch, true);
  const db = drizzlePglite(client, { schema }) as unknown as Db;
  const sql: SqlClient = {
    exec: async (text) => {
      await client.exec(text);
    },
    query: async <T>(text: string, params?: unknown[]) => (await client.query<T>(text, params)).rows,
  };
  let closed = false;
  return {
    kind: 'pglite',
    db,
    sql,
    withAdvisoryLock: (_lockId, fn) => fn(sql),
    // One connection, in this process: it does not come and go.
    onConnect: () => {},
    dump: () => client.dumpDataDir('none'),
    // One connection: the calls beyond the one it runs wait their turn.
    poolState: () => ({ max: 1, total: 1, idle: watch.inProgress === 0 ? 1 : 0, waiting: Math.max(0, watch.inProgress - 1) }),
    onQueryError: (listener) => watch.onError(listener),
    ping: async () => {
      await client.query('SELECT 1');
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await client.close();
    },
  };
}

type Call = (...args: unknown[]) => Promise<unknown>;

/** The statement's first keyword (SELECT, INSERT, WITH ...), a span's name and operation. */
function operation(text: unknown): string {
  return typeof text === 'string' ? (/^\s*([A-Za-z]+)/.exec(text)?.[1]?.toUpperCase() ?? 'SQL') : 'SQL';
}

/**
 * PGlite has no OpenTelemetry instrumentation: its statements (those inside a transaction too)
 * get spans here, as the pg instrumentation gives a PostgreSQL server's: the statement's text,
 * which is parameterized (no values), and only within a trace.
 */
function traceStatements(client: PGlite, traces: Tracing): void {
  const attributes = (text: unknown) => ({ 'db.system.name': 'postgresql', 'db.operation.name': operation(text), ...(typeof text === 'string' ? { 'db.query.text': text } : {}) });
  const traced = <T extends object>(target: T, name: 'query' | 'exec' | 'sql'): void => {
    const call = (target as unknown as Record<string, Call>)[name]!.bind(target);
    (target as unknown as Record<string, Call>)[name] = (...args) => traces.span(`pglite.${name} ${operation(args[0])}`, attributes(args[0]), () => call(...args), { requireParent: true });
  };
  traced(client, 'query');
  traced(client, 'exec');
  const transaction = client.transaction.bind(client);
  client.transaction = ((fn: (tx: object) => Promise<unknown>) =>
    traces.span('pglite.transaction', { 'db.system.name': 'postgresql' }, () =>
      transaction((tx) => {
        traced(tx, 'query');
        traced(tx, 'exec');
        return fn(tx);
      }),
    { requireParent: true })) as PGlite['transaction'];
}

const statementNames = new Map<string, string>();

/** A prepared statement's name: derived from its text, so every connection agrees on it. */
function statementName(text: string): string {
  let name = statementNames.get(text);
  if (!name) {
    name = `s_${createHash('sha256').update(text).digest('base64url').slice(0, 24)}`;
    statementNames.set(text, name);
  }
  return name;
}

/** How long a new connection to PostgreSQL may take before the request that needs it fails. */
export const CONNECT_TIMEOUT_MS = 10_000;

export function openPostgres(url: string, poolSize = 10): Store {
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    options: [process.env.PGOPTIONS, SESSION_SETTINGS].filter(Boolean).join(' '),
    // A database that does not answer (a frozen host, a network cut) fails a request after this
    // instead of holding it, and the pool, for as long as it lasts (an outage audit).
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
  });
  releaseWhenConnectionEnds(pool);
  const watch = new CallWatch();
  translateFailures(pool, ['query', 'connect'], watch);
  // An idle client that loses its connection must not crash the process.
  pool.on('error', () => {});
  // Nor one in use: pg-pool drops its own listener from a client it hands out (a transaction, a
  // lock), and pg emits 'error' on that client when its connection ends. Unheard, that killed the
  // process at a failover or restart (an outage audit); the pending query fails instead.
  pool.on('connect', (client) => {
    client.on('error', () => {});
    translateFailures(client, ['query'], watch);
  });
  const db = drizzleNodePostgres(pool, { schema }) as unknown as Db;
  const listeners = new Set<{ close(): Promise<void> }>();
  const sql: SqlClient = {
    exec: async (text) => {
      await pool.query(text);
    },
    query: async <T>(text: string, params?: unknown[], options?: QueryOptions) =>
      (options?.prepare
        ? await pool.query({ name: statementName(text), text, values: params as unknown[] })
        : await pool.query(text, params as unknown[])
      ).rows as T[],
  };
  let closed = false;
  return {
    kind: 'postgres',
    db,
    sql,
    withAdvisoryLock: async (lockId, fn) => {
      const client = await pool.connect();
      const clientSql: SqlClient = {
        exec: async (text) => {
          await client.query(text);
        },
        query: async <T>(text: string, params?: unknown[]) => (await client.query(text, params as unknown[])).rows as T[],
      };
      try {
        await client.query('SELECT pg_advisory_lock($1)', [lockId]);
        try {
          return await fn(clientSql);
        } finally {
          await client.query('SELECT pg_advisory_unlock($1)', [lockId]);
        }
      } finally {
        client.release();
      }
    },
    ping: async () => {
      await pool.query('SELECT 1');
    },
    onConnect: (listener) => {
      pool.on('connect', () => listener());
    },
    openCursor: (text, params) => openCursor(pool, () => new pg.Client({ connectionString: url }), text, params),
    copyOut: (setup, copyText) => openCopyOut(pool, () => new pg.Client({ connectionString: url }), setup, copyText),
    poolState: () => ({ max: poolSize, total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    onQueryError: (listener) => watch.onError(listener),
    listen: (channel, onNotify) => {
      const listener = listenOn(url, channel, onNotify);
      listeners.add(listener);
      return {
        close: async () => {
          listeners.delete(listener);
          await listener.close();
        },
      };
    },
    close: async () => {
      if (closed) return;
      closed = true;
      await Promise.all([...listeners].map((l) => l.close()));
      await pool.end();
    },
  };
}

/** How long a lost LISTEN connection waits before it is made again. */
const RELISTEN_MS = 1_000;

/** A connection that LISTENs on `channel`, made again whenever it is lost, until closed. */
function listenOn(url: string, channel: string, onNotify: () => void): { close(): Promise<void> } {
  let closed = false;
  let client: pg.Client | undefined;
  let timer: NodeJS.Timeout | undefined;
  const connect = () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    client = c;
    let lost = false;
    const again = () => {
      if (lost || closed) return;
      lost = true;
      c.end().catch(() => {});
      timer = setTimeout(connect, RELISTEN_MS);
    };
    c.on('error', again);
    c.on('end', again);
    c.on('notification', () => onNotify());
    c.connect()
      .then(() => c.query(`LISTEN ${pg.escapeIdentifier(channel)}`))
      .then(() => onNotify())
      .catch(again);
  };
  connect();
  return {
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await client?.end().catch(() => {});
    },
  };
}

/** Opens the configured store and brings its schema up to date. */
export async function openStore(config: { databaseUrl?: string; dataDir: string; databasePoolSize: number }): Promise<Store> {
  const store = config.databaseUrl
    ? openPostgres(config.databaseUrl, config.databasePoolSize)
    : await openPglite({ dataDir: join(config.dataDir, 'pglite') });
  try {
    await migrate(store);
  } catch (err) {
    await store.close();
    throw err;
  }
  return store;
}
