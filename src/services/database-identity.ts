import type { Db, DbOrTx } from '../store/database.ts';
import { eq, sql } from '../store/drizzle.ts';
import { rowsOf } from '../store/rows.ts';
import { appSettings } from '../store/schema/index.ts';

/** Which database this is: its cluster's system identifier and its own OID. */
export interface DatabaseIdentity {
  systemIdentifier: string;
  databaseOid: number;
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
 * Tells a database restored from a backup, or copied, from the one the service last ran on: the
 * database records its identity at the service's first start, and a restore into another
 * database (or cluster) keeps the record but not the identity. The jobs that move money
 * (settlement and billing) then wait until an operator confirms the move (`payments database
 * confirm-move`): a restored database that the old one outlived, or that is older than what the
 * processor has done, would charge and capture again what the old copy already did (a backup audit
 * charged a bill date twice so). A copied PGlite data directory keeps its identity: not told.
 */
export class DatabaseIdentityService {
  readonly #db: Db;

  constructor(db: Db) {
    this.#db = db;
  }

  async current(db: DbOrTx = this.#db): Promise<DatabaseIdentity> {
    const [row] = rowsOf<{ system_identifier: string; database_oid: number | string }>(
      await db.execute(
        sql`SELECT (SELECT system_identifier::text FROM pg_control_system()) AS system_identifier,
                   (SELECT oid::int FROM pg_database WHERE datname = current_database()) AS database_oid`,
      ),
    );
    return { systemIdentifier: String(row!.system_identifier), databaseOid: Number(row!.database_oid) };
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

  /** False while the database is not the one its record names (none recorded: true). */
  async confirmed(): Promise<boolean> {
    const recorded = await this.#recorded();
    return !recorded || same(recorded, await this.current());
  }

  /**
   * Makes this database the service's: moves each sequence that hands out numbers outside the
   * service SEQUENCE_GAP on, and records this identity, in one transaction.
   */
  async confirmMove(): Promise<{ identity: DatabaseIdentity; sequences: { name: string; from: number; to: number }[] }> {
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
  return a.systemIdentifier === b.systemIdentifier && a.databaseOid === b.databaseOid;
}
