import type { Cents } from '../domain/money.ts';
import type { Clock } from '../platform/clock.ts';
import type { SqlClient } from '../platform/database/database.ts';
import { DatabaseUnavailableError, findError } from '../platform/errors.ts';

/** One thing the simulator did: a sale, refund or void, by our reference. */
export interface LedgerEntry {
  reference: string;
  kind: 'sale' | 'refund' | 'void';
  approved: boolean;
  responseCode: string;
  transactionId: string;
  authCode: string | null;
  amountCents: Cents;
  /** A refund's or void's: the sale it refers to. */
  originalTransactionId: string | null;
  recordedAt: Date;
}

/**
 * What the simulator did, by reference, where every server process on the database sees it: its
 * look-ups read it, so they are true across processes and restarts as a real processor's records
 * are. A reference keeps its first entry.
 */
export interface SimulatorLedger {
  /** Takes the entry for writing (in the background: see SqlSimulatorLedger). */
  record(entry: Omit<LedgerEntry, 'recordedAt'>): void;
  /** Resolves when every entry taken so far is written (or reported lost). */
  drain(): Promise<void>;
  /** The entry of a reference, after this process's entries are written. */
  find(reference: string): Promise<LedgerEntry | undefined>;
  /** The approved void of a sale, by the sale's transaction id. */
  voidOf(transactionId: string): Promise<LedgerEntry | undefined>;
}

interface Row {
  reference: string;
  kind: LedgerEntry['kind'];
  approved: boolean;
  response_code: string;
  transaction_id: string;
  auth_code: string | null;
  amount_cents: number | string;
  original_transaction_id: string | null;
  recorded_at: Date | string;
}

const COLUMNS = 'reference, kind, approved, response_code, transaction_id, auth_code, amount_cents, original_transaction_id, recorded_at';

/** Every entry of a flush in one statement (the arrays are its columns); a reference recorded already keeps its entry. */
const RECORD_SQL = `INSERT INTO simulator_ledger (${COLUMNS})
SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::timestamptz[])
ON CONFLICT (reference) DO NOTHING`;

const FIND_SQL = `SELECT ${COLUMNS} FROM simulator_ledger WHERE reference = $1`;
const VOID_OF_SQL = `SELECT ${COLUMNS} FROM simulator_ledger WHERE original_transaction_id = $1 AND kind = 'void' AND approved ORDER BY recorded_at LIMIT 1`;

/** Fixed texts: prepared once per connection (PostgreSQL), not parsed for every flush. */
const PREPARED = { prepare: true } as const;

/**
 * How long entries gather before they are written together. The payment does not wait for it:
 * at 400 payments a second, about four share a statement and a commit.
 */
export const LEDGER_FLUSH_DELAY_MS = 10;

/** How soon entries the database could not take are written again. */
const RETRY_AFTER_MS = 250;

/**
 * The ledger in the `simulator_ledger` table (migration 0022). The simulator answers without
 * waiting for the write: entries gather for LEDGER_FLUSH_DELAY_MS and go in one statement, one at
 * a time per process, so that the ledger costs a payment little (docs/decisions.md, "The
 * simulator's ledger"). Its look-ups first write this process's entries. The store is closed
 * after the ledger has drained (the composition root sees to it); a process killed between an
 * answer and its flush loses those entries, and their look-ups say "not found", as for a call
 * that never reached the processor. A write the database cannot take now is made again; one it
 * refuses is reported through `onLost`.
 */
export class SqlSimulatorLedger implements SimulatorLedger {
  readonly #sql: SqlClient;
  readonly #clock: Clock;
  readonly #onLost: (count: number, error: unknown) => void;
  readonly #delayMs: number;
  #queue: LedgerEntry[] = [];
  #timer: NodeJS.Timeout | undefined;
  /** The flushes, one after another. */
  #writing: Promise<void> = Promise.resolve();

  constructor(deps: { sql: SqlClient; clock: Clock; onLost?: (count: number, error: unknown) => void; delayMs?: number }) {
    this.#sql = deps.sql;
    this.#clock = deps.clock;
    this.#onLost = deps.onLost ?? (() => {});
    this.#delayMs = deps.delayMs ?? LEDGER_FLUSH_DELAY_MS;
  }

  record(entry: Omit<LedgerEntry, 'recordedAt'>): void {
    this.#queue.push({ ...entry, recordedAt: this.#clock.now() });
    this.#timer ??= setTimeout(() => this.#flush(), this.#delayMs);
  }

  async drain(): Promise<void> {
    while (this.#queue.length > 0 || this.#timer) this.#flush();
    await this.#writing;
  }

  async find(reference: string): Promise<LedgerEntry | undefined> {
    await this.drain();
    const [row] = await this.#sql.query<Row>(FIND_SQL, [reference], PREPARED);
    return row ? entryOf(row) : undefined;
  }

  async voidOf(transactionId: string): Promise<LedgerEntry | undefined> {
    await this.drain();
    const [row] = await this.#sql.query<Row>(VOID_OF_SQL, [transactionId], PREPARED);
    return row ? entryOf(row) : undefined;
  }

  /** Takes the queue for the next write, after the one under way. */
  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const batch = this.#queue;
    this.#queue = [];
    if (batch.length > 0) this.#writing = this.#writing.then(() => this.#write(batch));
  }

  async #write(batch: LedgerEntry[]): Promise<void> {
    try {
      await this.#sql.query(
        RECORD_SQL,
        [
          batch.map((e) => e.reference),
          batch.map((e) => e.kind),
          batch.map((e) => e.approved),
          batch.map((e) => e.responseCode),
          batch.map((e) => e.transactionId),
          batch.map((e) => e.authCode),
          batch.map((e) => e.amountCents),
          batch.map((e) => e.originalTransactionId),
          batch.map((e) => e.recordedAt.toISOString()),
        ],
        PREPARED,
      );
    } catch (err) {
      // The processor's records outlast our database's outages: written again once it answers.
      if (findError(err, DatabaseUnavailableError)) {
        this.#queue.unshift(...batch);
        this.#timer ??= setTimeout(() => this.#flush(), RETRY_AFTER_MS);
        return;
      }
      this.#onLost(batch.length, err);
    }
  }
}

function entryOf(r: Row): LedgerEntry {
  return {
    reference: r.reference,
    kind: r.kind,
    approved: r.approved,
    responseCode: r.response_code,
    transactionId: r.transaction_id,
    authCode: r.auth_code,
    amountCents: Number(r.amount_cents),
    originalTransactionId: r.original_transaction_id,
    recordedAt: new Date(r.recorded_at),
  };
}
