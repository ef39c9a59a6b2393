import { Batcher } from '../../platform/batcher.ts';
import type { SqlClient } from '../../platform/database/database.ts';

export type KeyState = 'running' | 'done' | 'unknown';

/** A key's row as another request with the key finds it. */
export interface StoredKey {
  fingerprint: string;
  state: KeyState;
  expiresAt: Date;
  leaseUntil: Date;
  /** The stored answer ('done' only). */
  answer: { status: number; contentType: string; body: string } | undefined;
}

export interface NewClaim {
  partnerId: string;
  key: string;
  claim: string;
  fingerprint: string;
  createdAt: Date;
  expiresAt: Date;
  leaseUntil: Date;
}

interface Row {
  claimed: boolean;
  fingerprint: string | null;
  state: KeyState | null;
  expires_at: Date | string | null;
  lease_until: Date | string | null;
  status: number | null;
  content_type: string | null;
  body: string | null;
}

/**
 * Every write here commits without waiting for the WAL flush (synchronous_commit off, for the
 * statement's own transaction only): a key's writes added two flushed commits to a payment's two
 * and halved its throughput. Nothing is lost that matters (docs/decisions.md, "Idempotency
 * keys"): the request's own writes that come after the claim (a payment's Pending row, a refund's
 * claim) commit synchronously, and a flush writes the WAL before them, the claim included, before
 * any processor is asked; a stored answer lost with a crash of the database leaves the key
 * running: it is answered 409, never run again.
 */
const ASYNC_COMMIT = "(SELECT set_config('synchronous_commit', 'off', true)) AS async_commit";

/**
 * The claims of a batch of requests and the answers of others, in one call of
 * `idempotency_batch` (migrations 0027 and 0028): one insert of the claims, in key order, then
 * one update of the answers, each key a look-up by the primary key, planned once per connection;
 * two processes' calls never wait for each other in a cycle (0027 says why). The insert takes no
 * lock when a key exists, so a replay only reads; a key taken is read with a snapshot taken after
 * its insert; a key answered in the same call is found running (409: the client asks again). A
 * key found by none (deleted meanwhile) is read again on its own.
 */
/** The most claims and answers one call takes; the rest wait for the next. */
const MAX_BATCH = 100;

/**
 * The call's text by its number of answers: at most MAX_BATCH + 1 texts, a bounded set of prepared
 * statements. Each answer's body is a parameter of its own, sent as it is: as an element of an
 * array parameter the driver escaped its every quote (3 us and 16 kB of garbage a payment's
 * answer) and PostgreSQL parsed it again (array_in).
 */
const BATCH_SQL: string[] = [];
const batchSqlFor = (answers: number) =>
  (BATCH_SQL[answers] ??= `SELECT o_claim AS claim, o_claimed AS claimed, o_fingerprint AS fingerprint, o_state AS state, o_expires_at AS expires_at,
  o_lease_until AS lease_until, o_status AS status, o_content_type AS content_type, o_body AS body
FROM idempotency_batch($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, ${answers === 0 ? "'{}'" : `ARRAY[${Array.from({ length: answers }, (_, i) => `$${13 + i}`).join(', ')}]`}::text[])`);

const FIND_SQL = 'SELECT false AS claimed, fingerprint, state, expires_at, lease_until, status, content_type, body FROM idempotency_keys WHERE partner_id = $1 AND key = $2';

/** An expired key is taken over as if new: only while it is still expired (another request may take it first). */
const TAKE_OVER_SQL = `UPDATE idempotency_keys
SET claim = $3, fingerprint = $4, state = 'running', created_at = $5, expires_at = $6, lease_until = $7, status = NULL, content_type = NULL, body = NULL
WHERE partner_id = $1 AND key = $2 AND expires_at <= $5
RETURNING 1`;

const MARK_UNKNOWN_SQL = `UPDATE idempotency_keys SET state = 'unknown' FROM ${ASYNC_COMMIT} WHERE partner_id = $1 AND key = $2 AND claim = $3 AND state = 'running'`;

const RELEASE_SQL = `DELETE FROM idempotency_keys USING ${ASYNC_COMMIT} WHERE partner_id = $1 AND key = $2 AND claim = $3 AND state = 'running'`;

/** In batches: one statement over a day of keys would hold its locks and WAL for as long. */
const PURGE_SQL = `WITH gone AS (
  DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)
  RETURNING 1
) SELECT count(*)::int AS n FROM gone`;

/**
 * Prepared once per connection: the batch's call (the function's own plans cannot turn into a
 * scan, migration 0028) and the look-up by the primary key, whose generic plan is an index scan
 * except one made while the table, analysed, held a page or two (a sequential scan, as cheap
 * then), until the next ANALYZE; it runs only for a key no batch found.
 */
const PREPARED = { prepare: true } as const;

const date = (v: Date | string | null) => (v instanceof Date ? v : new Date(v!));

function stored(row: Row): StoredKey {
  return {
    fingerprint: row.fingerprint!,
    state: row.state!,
    expiresAt: date(row.expires_at),
    leaseUntil: date(row.lease_until),
    answer: row.state === 'done' && row.status !== null ? { status: Number(row.status), contentType: row.content_type ?? 'application/json; charset=utf-8', body: row.body ?? '' } : undefined,
  };
}

/** What a claim found: the key is the request's now, or the row that holds it. */
export type ClaimResult = { claimed: true } | { claimed: false; existing: StoredKey | undefined };

/** A claim or an answer, as the batch statement takes them. */
type Operation = { claim: NewClaim; finish?: undefined } | { finish: Finish; claim?: undefined };

interface Finish {
  partnerId: string;
  key: string;
  claim: string;
  answer: { status: number; contentType: string; body: string };
}

const byKey = <T extends { partnerId: string; key: string }>(a: T, b: T) =>
  a.partnerId < b.partnerId ? -1 : a.partnerId > b.partnerId ? 1 : a.key < b.key ? -1 : a.key > b.key ? 1 : 0;

/**
 * Every statement of the idempotency keys (table idempotency_keys, migration 0020). Claims and
 * answers go in batches (platform/batcher.ts), one call at a time: under load one call serves the
 * claims and answers of the requests that arrived while the last one ran, instead of two
 * statements each.
 */
export class IdempotencyRepository {
  readonly #sql: SqlClient;
  readonly #batches: Batcher<Operation, ClaimResult | undefined>;

  constructor(sql: SqlClient) {
    this.#sql = sql;
    // One statement at a time: the requests of one turn go together, and those that arrive while it runs in the next.
    this.#batches = new Batcher((batch) => this.#run(batch), { slots: 1, maxBatch: MAX_BATCH });
  }

  /** Inserts the key as running; or the row that holds it already. */
  async claim(c: NewClaim): Promise<ClaimResult> {
    const found = (await this.#batches.add({ claim: c }))!;
    if (found.claimed || found.existing) return found;
    // Held by a request that committed after the statement's snapshot, or of the same batch: read it now.
    const [row] = await this.#sql.query<Row>(FIND_SQL, [c.partnerId, c.key], PREPARED);
    return { claimed: false, existing: row ? stored(row) : undefined };
  }

  /** Stores the answer on the claim's row. */
  async finish(partnerId: string, key: string, claim: string, answer: { status: number; contentType: string; body: string }): Promise<void> {
    await this.#batches.add({ finish: { partnerId, key, claim, answer } });
  }

  async #run(batch: Operation[]): Promise<(ClaimResult | undefined)[]> {
    const claims = batch.flatMap((o) => (o.claim ? [o.claim] : [])).sort(byKey);
    const finishes = batch.flatMap((o) => (o.finish ? [o.finish] : [])).sort(byKey);
    const claimColumns = [
      claims.map((c) => c.partnerId),
      claims.map((c) => c.key),
      claims.map((c) => c.claim),
      claims.map((c) => c.fingerprint),
      claims.map((c) => c.createdAt.toISOString()),
      claims.map((c) => c.expiresAt.toISOString()),
      claims.map((c) => c.leaseUntil.toISOString()),
    ];
    const answerColumns = [
      finishes.map((f) => f.partnerId),
      finishes.map((f) => f.key),
      finishes.map((f) => f.claim),
      finishes.map((f) => f.answer.status),
      finishes.map((f) => f.answer.contentType),
    ];
    const bodies = finishes.map((f) => f.answer.body);
    const rows = await this.#sql.query<Row & { claim: string }>(batchSqlFor(bodies.length), [...claimColumns, ...answerColumns, ...bodies], PREPARED);
    const byClaim = new Map(rows.map((r) => [String(r.claim), r]));
    return batch.map((o): ClaimResult | undefined => {
      if (!o.claim) return undefined;
      const row = byClaim.get(o.claim.claim);
      if (row?.claimed) return { claimed: true };
      return { claimed: false, existing: row?.state ? stored(row) : undefined };
    });
  }

  /** Takes over an expired key; false when it is no longer expired (another request took it). */
  async takeOver(c: NewClaim): Promise<boolean> {
    const rows = await this.#sql.query(TAKE_OVER_SQL, [c.partnerId, c.key, c.claim, c.fingerprint, c.createdAt, c.expiresAt, c.leaseUntil]);
    return rows.length > 0;
  }

  async markUnknown(partnerId: string, key: string, claim: string): Promise<void> {
    await this.#sql.query(MARK_UNKNOWN_SQL, [partnerId, key, claim]);
  }

  async release(partnerId: string, key: string, claim: string): Promise<void> {
    await this.#sql.query(RELEASE_SQL, [partnerId, key, claim]);
  }

  /** Deletes up to `limit` keys expired at `now`; how many it deleted. */
  async purgeExpired(now: Date, limit: number): Promise<number> {
    const [row] = await this.#sql.query<{ n: number }>(PURGE_SQL, [now, limit]);
    return Number(row?.n ?? 0);
  }
}
