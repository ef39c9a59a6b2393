import type { Db, DbOrTx } from '../../platform/database/database.ts';
import { eq, sql } from '../../platform/database/drizzle.ts';
import { rowsOf } from '../../platform/database/rows.ts';
import { appSettings } from '../../platform/database/schema/index.ts';

/**
 * Which database this is: the object ids PostgreSQL gave two of its tables when the migrations
 * made them. A logical restore (`pg_restore`, into another database or over this one with
 * `--clean`) makes them again under new ids; `pg_upgrade`, a physical copy (a base backup, a
 * snapshot, a replica) and `CREATE DATABASE ... TEMPLATE` keep them. The cluster's system
 * identifier was the first choice and is not used: `pg_upgrade` makes a new one, which would
 * have stopped settlement after every major upgrade (a review).
 */
export interface DatabaseIdentity {
  appSettingsOid: number;
  paymentsOid: number;
}

const KEY = 'database-identity';

/**
 * How far `confirmMove` moves each sequence on: well past what the old copy could have handed out
 * after the backup was taken, so that nothing it handed out is handed out again.
 */
export const SEQUENCE_GAP = 1_000_000;

/**
 * The sequences whose numbers leave the service (table and column, or the sequence itself):
 * gateway keys (CcInfoKey, CheckInfoKey), CustomerKeys, PaymentIds, settlement batch and recurring
 * profile numbers. After an older backup is restored each would hand out again numbers the old
 * copy gave partners: a backup audit saw a CcInfoKey issued after the backup issued again, for
 * another payer's card.
 */
const SEQUENCES: { name: string; table?: string; column?: string; sequence?: string }[] = [
  { name: 'gateway keys', sequence: 'gateway_key_seq' },
  { name: 'customer keys', sequence: 'customer_key_seq' },
  { name: 'payment ids', table: 'payments', column: 'payment_id' },
  { name: 'settlement batch numbers', table: 'settlement_batches', column: 'batch_no' },
  { name: 'recurring profile numbers', table: 'recurring_profiles', column: 'profile_id' },
];

export type IdentityCheck =
  | { state: 'recorded-now' | 'same'; current: DatabaseIdentity }
  | { state: 'moved'; recorded: DatabaseIdentity; current: DatabaseIdentity };

/**
 * Tells a database restored from a logical backup from the one the service last ran on: the
 * database records its identity at the service's first start, and a restore keeps the record but
 * not the identity. Restores it cannot tell (a physical backup, a copied PGlite directory) are held
 * by the operator (`payments database hold`). The jobs that move money
 * (settlement and billing) then wait until an operator confirms the move (`payments database
 * confirm-move`): a restored database that the old one outlived, or that is older than what the
 * processor has done, would charge and capture again what the old copy already did (a backup audit
 * charged a bill date twice so).
 */
export class DatabaseIdentityService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async current(db: DbOrTx = this.#db): Promise<DatabaseIdentity> {
    const [row] = rowsOf<{ app_settings: number | string; payments: number | string }>(
      await db.execute(sql`SELECT 'app_settings'::regclass::oid::bigint AS app_settings, 'payments'::regclass::oid::bigint AS payments`),
    );
    return { appSettingsOid: Number(row!.app_settings), paymentsOid: Number(row!.payments) };
  }

  async #recorded(): Promise<DatabaseIdentity | undefined> {
    const [row] = await this.#db.select().from(appSettings).where(eq(appSettings.key, KEY));
    return row ? (row.value as DatabaseIdentity) : undefined;
  }

  /** At a server's start: records the identity when none is (a first start, or an upgrade). */
  async checkAtStart(): Promise<IdentityCheck> {
    const current = await this.current();
    let recorded = await this.#recorded();
    if (!recorded) {
      await this.#db.insert(appSettings).values({ key: KEY, value: current }).onConflictDoNothing();
      recorded = (await this.#recorded())!;
      if (same(recorded, current)) return { state: 'recorded-now', current };
    }
    return same(recorded, current) ? { state: 'same', current } : { state: 'moved', recorded, current };
  }

  /**
   * Makes settlement and billing wait as after a restore the service cannot tell (a physical
   * backup restored, a PGlite directory copied), until `confirmMove`.
   */
  async hold(): Promise<void> {
    await this.#db.insert(appSettings).values({ key: KEY, value: HELD }).onConflictDoUpdate({ target: appSettings.key, set: { value: HELD } });
  }

  /** False while the database is not the one its record names (none recorded: true). */
  async confirmed(): Promise<boolean> {
    const recorded = await this.#recorded();
    return !recorded || same(recorded, await this.current());
  }

  /**
   * Makes this database the service's: moves each sequence that hands out numbers outside the
   * service SEQUENCE_GAP on, and records this identity. (The record is transactional; a sequence
   * once moved stays moved even if a later step fails, which only leaves a bigger gap.)
   */
  async confirmMove(options: { force?: boolean } = {}): Promise<{ identity: DatabaseIdentity; sequences: { name: string; from: number; to: number }[] }> {
    // Each run moves the sequences on again: only a database waiting for it, unless forced.
    if (!options.force && (await this.confirmed())) throw new AlreadyConfirmedError();
    return this.#db.transaction(async (tx) => {
      const identity = await this.current(tx);
      const sequences = [];
      for (const s of SEQUENCES) {
        const [found] = rowsOf<{ seq: string | null }>(
          await tx.execute(s.sequence ? sql`SELECT ${s.sequence}::regclass::text AS seq` : sql`SELECT pg_get_serial_sequence(${s.table}, ${s.column}) AS seq`),
        );
        const seq = found!.seq!;
        // The name comes from the catalog (regclass text is quoted where it needs to be).
        const [row] = rowsOf<{ from: string; to: string }>(
          await tx.execute(sql.raw(`SELECT last_value::text AS from, setval('${seq.replaceAll("'", "''")}', last_value + ${SEQUENCE_GAP})::text AS to FROM ${seq}`)),
        );
        sequences.push({ name: s.name, from: Number(row!.from), to: Number(row!.to) });
      }
      await tx.insert(appSettings).values({ key: KEY, value: identity }).onConflictDoUpdate({ target: appSettings.key, set: { value: identity } });
      return { identity, sequences };
    });
  }
}

function same(a: DatabaseIdentity, b: DatabaseIdentity): boolean {
  return a.appSettingsOid === b.appSettingsOid && a.paymentsOid === b.paymentsOid;
}

/** What `hold` records: no database has it, so the jobs wait until `confirmMove`. */
const HELD: DatabaseIdentity = { appSettingsOid: 0, paymentsOid: 0 };

export class AlreadyConfirmedError extends Error {
  constructor() {
    super('this database is already the confirmed one: confirm-move would only move its sequences on again (--force to do it anyway)');
  }
}
