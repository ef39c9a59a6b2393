import type { Store, Tx } from '../../platform/database/database.ts';
import { eq, sql } from '../../platform/database/drizzle.ts';
import { rowsOf } from '../../platform/database/rows.ts';
import { appSettings } from '../../platform/database/schema/index.ts';

/** The object ids of two tables, which a logical restore makes anew (database-identity-service.ts). */
export interface TableIds {
  appSettingsOid: number;
  paymentsOid: number;
}

/** A sequence by name, or the one that numbers a table's column. */
export type SequenceRef = { sequence: string } | { table: string; column: string };

/**
 * Every statement of the operator's safeguards: the database's identity, the facts the
 * installation records about itself (app_settings), its clock, whether it answers, and the lock
 * processes sharing it take turns on.
 */
export class OperationsRepository {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  /** Which kind of database this is. */
  get kind(): Store['kind'] {
    return this.#store.kind;
  }

  /** Resolves when the database answers a trivial statement. */
  async ping(): Promise<void> {
    await this.#store.ping();
  }

  /** The database server's clock, in milliseconds since the epoch. */
  async databaseNowMs(): Promise<number> {
    const [row] = await this.#store.sql.query<{ ms: number | string }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS ms');
    return Number(row!.ms);
  }

  async tableIds(tx?: Tx): Promise<TableIds> {
    const [row] = rowsOf<{ app_settings: number | string; payments: number | string }>(
      await (tx ?? this.#store.db).execute(sql`SELECT 'app_settings'::regclass::oid::bigint AS app_settings, 'payments'::regclass::oid::bigint AS payments`),
    );
    return { appSettingsOid: Number(row!.app_settings), paymentsOid: Number(row!.payments) };
  }

  /** The value recorded under `key`, or undefined. */
  async setting<T>(key: string): Promise<T | undefined> {
    const [row] = await this.#store.db.select().from(appSettings).where(eq(appSettings.key, key));
    return row ? (row.value as T) : undefined;
  }

  /** Records `value` under `key`; an error if one is recorded already. */
  async addSetting(key: string, value: unknown): Promise<void> {
    await this.#store.db.insert(appSettings).values({ key, value });
  }

  /** Records `value` under `key` unless one is recorded already. */
  async addSettingIfAbsent(key: string, value: unknown): Promise<void> {
    await this.#store.db.insert(appSettings).values({ key, value }).onConflictDoNothing();
  }

  /** Records `value` under `key`, replacing what was recorded; inside `tx` when given. */
  async putSetting(key: string, value: unknown, tx?: Tx): Promise<void> {
    await (tx ?? this.#store.db).insert(appSettings).values({ key, value }).onConflictDoUpdate({ target: appSettings.key, set: { value } });
  }

  /** Moves a sequence `gap` numbers on; returns its last value before and after. */
  async moveSequence(ref: SequenceRef, gap: number, tx: Tx): Promise<{ from: number; to: number }> {
    const [found] = rowsOf<{ seq: string | null }>(
      await tx.execute('sequence' in ref ? sql`SELECT ${ref.sequence}::regclass::text AS seq` : sql`SELECT pg_get_serial_sequence(${ref.table}, ${ref.column}) AS seq`),
    );
    const seq = found!.seq!;
    // The name comes from the catalog (regclass text is quoted where it needs to be).
    const [row] = rowsOf<{ from: string; to: string }>(
      await tx.execute(sql.raw(`SELECT last_value::text AS from, setval('${seq.replaceAll("'", "''")}', last_value + ${gap})::text AS to FROM ${seq}`)),
    );
    return { from: Number(row!.from), to: Number(row!.to) };
  }

  /** Runs `fn` in one transaction. */
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T> {
    return this.#store.db.transaction(fn);
  }

  /** Runs `fn` while holding advisory lock `lockId`: processes sharing the database take turns. */
  withLock<T>(lockId: number, fn: () => Promise<T>): Promise<T> {
    return this.#store.withAdvisoryLock(lockId, () => fn());
  }
}
