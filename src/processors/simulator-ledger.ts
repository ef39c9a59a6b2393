import type { Cents } from '../domain/money.ts';
import type { Clock } from '../platform/clock.ts';
import type { SqlClient } from '../platform/database/database.ts';

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
 * are. The simulator records before it answers (what it has not recorded, it has not done); a
 * reference it has recorded keeps its first outcome (a processor's duplicate check).
 */
export interface SimulatorLedger {
  /** Records the entry unless its reference has one; the entry that stands. */
  record(entry: Omit<LedgerEntry, 'recordedAt'>): Promise<LedgerEntry>;
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

/**
 * Every entry of a flush in one statement: the arrays are the entries' columns. An entry whose
 * reference is recorded already is left as it is (its first outcome stands).
 */
const RECORD_SQL = `INSERT INTO simulator_ledger (${COLUMNS})
SELECT * FROM unnest($1::text[], $2::text[], $3::boolean[], $4::text[], $5::text[], $6::text[], $7::bigint[], $8::text[], $9::timestamptz[])
ON CONFLICT (reference) DO NOTHING
RETURNING reference`;

const FIND_SQL = `SELECT ${COLUMNS} FROM simulator_ledger WHERE reference = ANY($1::text[])`;
const VOID_OF_SQL = `SELECT ${COLUMNS} FROM simulator_ledger WHERE original_transaction_id = $1 AND kind = 'void' AND approved ORDER BY recorded_at LIMIT 1`;

/** Fixed texts: prepared once per connection (PostgreSQL), not parsed for every payment. */
const PREPARED = { prepare: true } as const;

type Waiting = { entry: LedgerEntry; resolve: (e: LedgerEntry) => void; reject: (err: unknown) => void };

/**
 * The ledger in the `simulator_ledger` table (migration 0022), written in a statement of its own.
 * Entries that arrive while a write is under way wait and go together in the next one (group
 * commit): under load, many payments share one statement and one commit, and a payment alone is
 * written at once. The benchmark's figures are in docs/decisions.md ("The simulator's ledger").
 */
export class SqlSimulatorLedger implements SimulatorLedger {
  readonly #sql: SqlClient;
  readonly #clock: Clock;
  #queue: Waiting[] = [];
  #writing = false;

  constructor(deps: { sql: SqlClient; clock: Clock }) {
    this.#sql = deps.sql;
    this.#clock = deps.clock;
  }

  record(entry: Omit<LedgerEntry, 'recordedAt'>): Promise<LedgerEntry> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ entry: { ...entry, recordedAt: this.#clock.now() }, resolve, reject });
      if (!this.#writing) void this.#flush();
    });
  }

  async #flush(): Promise<void> {
    this.#writing = true;
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue;
        this.#queue = [];
        await this.#write(batch);
      }
    } finally {
      this.#writing = false;
    }
  }

  async #write(batch: Waiting[]): Promise<void> {
    try {
      const entries = batch.map((w) => w.entry);
      const inserted = await this.#sql.query<{ reference: string }>(
        RECORD_SQL,
        [
          entries.map((e) => e.reference),
          entries.map((e) => e.kind),
          entries.map((e) => e.approved),
          entries.map((e) => e.responseCode),
          entries.map((e) => e.transactionId),
          entries.map((e) => e.authCode),
          entries.map((e) => e.amountCents),
          entries.map((e) => e.originalTransactionId),
          entries.map((e) => e.recordedAt.toISOString()),
        ],
        PREPARED,
      );
      const written = new Set(inserted.map((r) => r.reference));
      // A reference recorded before (or twice in this batch): the entry that stands is the first.
      const others = batch.filter((w) => !written.has(w.entry.reference));
      const standing = others.length > 0 ? await this.#findMany(others.map((w) => w.entry.reference)) : new Map<string, LedgerEntry>();
      const firstInBatch = new Map<string, LedgerEntry>();
      for (const w of batch) {
        const ref = w.entry.reference;
        if (written.has(ref) && !firstInBatch.has(ref)) {
          firstInBatch.set(ref, w.entry);
          w.resolve(w.entry);
        } else {
          w.resolve(firstInBatch.get(ref) ?? standing.get(ref) ?? w.entry);
        }
      }
    } catch (err) {
      for (const w of batch) w.reject(err);
    }
  }

  async find(reference: string): Promise<LedgerEntry | undefined> {
    return (await this.#findMany([reference])).get(reference);
  }

  async voidOf(transactionId: string): Promise<LedgerEntry | undefined> {
    const [row] = await this.#sql.query<Row>(VOID_OF_SQL, [transactionId], PREPARED);
    return row ? entryOf(row) : undefined;
  }

  async #findMany(references: string[]): Promise<Map<string, LedgerEntry>> {
    const rows = await this.#sql.query<Row>(FIND_SQL, [references], PREPARED);
    return new Map(rows.map((r) => [r.reference, entryOf(r)]));
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
