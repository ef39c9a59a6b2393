import { ConflictError } from '../../platform/errors.ts';
import type { OperationsRepository, SequenceRef, TableIds } from './operations-repository.ts';

/**
 * Which database this is: the object ids PostgreSQL gave two of its tables when the migrations
 * made them. A logical restore (`pg_restore`, into another database or over this one with
 * `--clean`) makes them again under new ids; `pg_upgrade`, a physical copy (a base backup, a
 * snapshot, a replica) and `CREATE DATABASE ... TEMPLATE` keep them. Not the cluster's system
 * identifier: `pg_upgrade` makes a new one, which would stop settlement after every major upgrade.
 */
export type DatabaseIdentity = TableIds;

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
 * copy gave partners (a CcInfoKey issued after the backup, issued again for another payer's card).
 */
const SEQUENCES: ({ name: string } & SequenceRef)[] = [
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
 * processor has done, would charge and capture again what the old copy already did (a bill date
 * charged twice).
 */
export class DatabaseIdentityService {
  readonly #repository: OperationsRepository;

  constructor(deps: { repository: OperationsRepository }) {
    this.#repository = deps.repository;
  }

  async current(): Promise<DatabaseIdentity> {
    return this.#repository.tableIds();
  }

  async #recorded(): Promise<DatabaseIdentity | undefined> {
    return this.#repository.setting<DatabaseIdentity>(KEY);
  }

  /** At a server's start: records the identity when none is (a first start, or an upgrade). */
  async checkAtStart(): Promise<IdentityCheck> {
    const current = await this.current();
    let recorded = await this.#recorded();
    if (!recorded) {
      await this.#repository.addSettingIfAbsent(KEY, current);
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
    await this.#repository.putSetting(KEY, HELD);
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
    if (!options.force && (await this.confirmed())) throw new ConflictError(ALREADY_CONFIRMED);
    return this.#repository.transaction(async (tx) => {
      const identity = await this.#repository.tableIds(tx);
      const sequences = [];
      for (const { name, ...ref } of SEQUENCES) sequences.push({ name, ...(await this.#repository.moveSequence(ref, SEQUENCE_GAP, tx)) });
      await this.#repository.putSetting(KEY, identity, tx);
      return { identity, sequences };
    });
  }
}

function same(a: DatabaseIdentity, b: DatabaseIdentity): boolean {
  return a.appSettingsOid === b.appSettingsOid && a.paymentsOid === b.paymentsOid;
}

/** What `hold` records: no database has it, so the jobs wait until `confirmMove`. */
const HELD: DatabaseIdentity = { appSettingsOid: 0, paymentsOid: 0 };

/** Why `confirmMove` refuses a database that does not wait for it (a ConflictError). */
const ALREADY_CONFIRMED = 'this database is already the confirmed one: confirm-move would only move its sequences on again (--force to do it anyway)';
