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
 * The claim and, when the key is taken, the row that holds it, in one round trip. The insert
 * takes no lock when the key exists (DO NOTHING), so a replay only reads. The row found is read
 * with the statement's snapshot: a key inserted by a request that committed after it began is
 * not seen (the insert waited for it, then did nothing), and is then read again.
 */
const CLAIM_SQL = `WITH claimed AS (
  INSERT INTO idempotency_keys (partner_id, key, claim, fingerprint, state, created_at, expires_at, lease_until)
  SELECT $1::uuid, $2::text, $3::uuid, $4::text, 'running', $5::timestamptz, $6::timestamptz, $7::timestamptz FROM ${ASYNC_COMMIT}
  ON CONFLICT (partner_id, key) DO NOTHING
  RETURNING 1
)
SELECT true AS claimed, NULL AS fingerprint, NULL AS state, NULL AS expires_at, NULL AS lease_until, NULL AS status, NULL AS content_type, NULL AS body FROM claimed
UNION ALL
SELECT false, fingerprint, state, expires_at, lease_until, status, content_type, body FROM idempotency_keys
WHERE partner_id = $1 AND key = $2 AND NOT EXISTS (SELECT 1 FROM claimed)`;

const FIND_SQL = 'SELECT false AS claimed, fingerprint, state, expires_at, lease_until, status, content_type, body FROM idempotency_keys WHERE partner_id = $1 AND key = $2';

/** An expired key is taken over as if new: only while it is still expired (another request may take it first). */
const TAKE_OVER_SQL = `UPDATE idempotency_keys
SET claim = $3, fingerprint = $4, state = 'running', created_at = $5, expires_at = $6, lease_until = $7, status = NULL, content_type = NULL, body = NULL
WHERE partner_id = $1 AND key = $2 AND expires_at <= $5
RETURNING 1`;

const FINISH_SQL = `UPDATE idempotency_keys SET state = 'done', status = $4, content_type = $5, body = $6 FROM ${ASYNC_COMMIT}
WHERE partner_id = $1 AND key = $2 AND claim = $3 AND state = 'running'`;

const MARK_UNKNOWN_SQL = `UPDATE idempotency_keys SET state = 'unknown' FROM ${ASYNC_COMMIT} WHERE partner_id = $1 AND key = $2 AND claim = $3 AND state = 'running'`;

const RELEASE_SQL = `DELETE FROM idempotency_keys USING ${ASYNC_COMMIT} WHERE partner_id = $1 AND key = $2 AND claim = $3 AND state = 'running'`;

/** In batches: one statement over a day of keys would hold its locks and WAL for as long. */
const PURGE_SQL = `WITH gone AS (
  DELETE FROM idempotency_keys WHERE ctid IN (SELECT ctid FROM idempotency_keys WHERE expires_at <= $1 LIMIT $2)
  RETURNING 1
) SELECT count(*)::int AS n FROM gone`;

/** Fixed texts on every keyed request: prepared once per connection. */
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

/** Every statement of the idempotency keys (table idempotency_keys, migration 0020). */
export class IdempotencyRepository {
  readonly #sql: SqlClient;

  constructor(sql: SqlClient) {
    this.#sql = sql;
  }

  /** Inserts the key as running; or the row that holds it already. */
  async claim(c: NewClaim): Promise<{ claimed: true } | { claimed: false; existing: StoredKey | undefined }> {
    const params = [c.partnerId, c.key, c.claim, c.fingerprint, c.createdAt, c.expiresAt, c.leaseUntil];
    let [row] = await this.#sql.query<Row>(CLAIM_SQL, params, PREPARED);
    if (row?.claimed) return { claimed: true };
    // Held by a request that committed after this statement's snapshot: read it now.
    row ??= (await this.#sql.query<Row>(FIND_SQL, [c.partnerId, c.key], PREPARED))[0];
    return { claimed: false, existing: row ? stored(row) : undefined };
  }

  /** Takes over an expired key; false when it is no longer expired (another request took it). */
  async takeOver(c: NewClaim): Promise<boolean> {
    const rows = await this.#sql.query(TAKE_OVER_SQL, [c.partnerId, c.key, c.claim, c.fingerprint, c.createdAt, c.expiresAt, c.leaseUntil]);
    return rows.length > 0;
  }

  async finish(partnerId: string, key: string, claim: string, answer: { status: number; contentType: string; body: string }): Promise<void> {
    await this.#sql.query(FINISH_SQL, [partnerId, key, claim, answer.status, answer.contentType, answer.body], PREPARED);
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
