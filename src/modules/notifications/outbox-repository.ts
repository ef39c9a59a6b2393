import type { SqlClient } from '../../platform/database/database.ts';

export type NotificationStatus = 'waiting' | 'pending' | 'delivered' | 'failed' | 'cancelled';

/** A notification as its history shows it. */
export interface NotificationRecord {
  id: number;
  guid: string;
  configId: number;
  partnerId: string;
  paymentGuid: string;
  paymentId: number;
  paymentExternalId: string | null;
  url: string;
  payload: string | null;
  status: NotificationStatus;
  retryCount: number;
  maxRetries: number;
  createdAt: Date;
  modifiedAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date;
  lastStatusCode: number | null;
  lastError: string | null;
}

/** A notification a worker holds: what it sends, and the claim that lets it record the outcome. */
export interface ClaimedNotification {
  id: number;
  guid: string;
  configId: number;
  partnerId: string;
  url: string;
  payload: string;
  retryCount: number;
  maxRetries: number;
  /** The claim's number: only its holder records the outcome. */
  attempt: number;
  accessToken: { ciphertext: string; keyId: string } | null;
}

interface HistoryRow {
  id: string | number;
  guid: string;
  config_id: number;
  partner_id: string;
  payment_guid: string;
  payment_id: number;
  transaction_id: string | null;
  url: string;
  payload: string | null;
  status: NotificationStatus;
  retry_count: number;
  max_retries: number;
  created_at: Date | string;
  modified_at: Date | string;
  delivered_at: Date | string | null;
  next_attempt_at: Date | string;
  last_status_code: number | null;
  last_error: string | null;
}

const HISTORY_SELECT = `SELECT n.id, n.guid, n.config_id, n.partner_id, n.payment_id AS payment_guid, p.payment_id, p.transaction_id, n.url, n.payload, n.status,
       n.retry_count, n.max_retries, n.created_at, n.modified_at, n.delivered_at, n.next_attempt_at, n.last_status_code, n.last_error
  FROM notifications n JOIN payments p ON p.id = n.payment_id`;

function toRecord(r: HistoryRow): NotificationRecord {
  return {
    id: Number(r.id),
    guid: r.guid,
    configId: Number(r.config_id),
    partnerId: r.partner_id,
    paymentGuid: r.payment_guid,
    paymentId: Number(r.payment_id),
    paymentExternalId: r.transaction_id,
    url: r.url,
    payload: r.payload,
    status: r.status,
    retryCount: Number(r.retry_count),
    maxRetries: Number(r.max_retries),
    createdAt: new Date(r.created_at),
    modifiedAt: new Date(r.modified_at),
    deliveredAt: r.delivered_at === null ? null : new Date(r.delivered_at),
    nextAttemptAt: new Date(r.next_attempt_at),
    lastStatusCode: r.last_status_code === null ? null : Number(r.last_status_code),
    lastError: r.last_error,
  };
}

/**
 * One statement a worker makes each time it looks for work: it records the deliveries that ended
 * since its last one (`done`: id, claim, status code, when; only the holder of the latest claim records),
 * then claims up to $4 due notifications, at most $7 of each URL (config) so that one receiver's
 * backlog does not fill every slot, skipping rows another worker holds (SKIP LOCKED), configs in
 * $5 (this worker's busy receivers), paused and removed ones, and any notification with an
 * earlier one of the same payment and URL still to send (the ones recorded here excepted: their
 * update is not visible to the rest of the statement): per payment, changes are delivered in
 * order. A claim pushes next_attempt_at to the lease's end ($6 ms): a worker that dies holding it
 * leaves it due again then. Times are the database's, shared by every process.
 * Recording and claiming in one statement halves the round trips a notification costs the
 * process that also takes payments.
 */
const RECORD_AND_CLAIM_SQL = `
WITH done AS (
  UPDATE notifications n SET status = 'delivered', delivered_at = clock_timestamp() - d.ago_ms * interval '1 millisecond', modified_at = clock_timestamp(),
         last_status_code = d.status_code, last_error = NULL
    FROM unnest($1::bigint[], $2::integer[], $3::smallint[], $8::integer[]) AS d (id, attempt, status_code, ago_ms)
   WHERE n.id = d.id AND n.attempts = d.attempt AND n.status = 'pending'
  RETURNING n.id, extract(epoch FROM n.delivered_at - n.created_at) AS lag
), claimed AS (
  UPDATE notifications n SET next_attempt_at = clock_timestamp() + $6 * interval '1 millisecond', attempts = n.attempts + 1
    FROM (SELECT d.id FROM notification_configs f
            CROSS JOIN LATERAL (
              SELECT c.id, c.next_attempt_at FROM notifications c
               WHERE c.config_id = f.id AND c.status = 'pending' AND c.next_attempt_at <= clock_timestamp()
                 AND NOT (c.id = ANY($1::bigint[]))
                 AND NOT EXISTS (SELECT 1 FROM notifications e WHERE e.payment_id = c.payment_id AND e.config_id = c.config_id
                                  AND e.id < c.id AND e.status IN ('waiting', 'pending') AND NOT (e.id = ANY($1::bigint[])))
               ORDER BY c.next_attempt_at, c.id
               LIMIT $7
               FOR UPDATE SKIP LOCKED) d
           WHERE f.deleted_at IS NULL AND NOT f.paused AND NOT (f.id = ANY($5::integer[]))
           ORDER BY d.next_attempt_at, d.id
           LIMIT $4) d, notification_configs f
   WHERE n.id = d.id AND f.id = n.config_id
  RETURNING n.id, n.guid, n.config_id, n.partner_id, n.url, n.payload, n.retry_count, n.max_retries, n.attempts,
            f.access_token_ciphertext, f.access_token_key_id
)
SELECT true AS recorded, id, lag, NULL::uuid AS guid, NULL::integer AS config_id, NULL::uuid AS partner_id, NULL::text AS url, NULL::text AS payload,
       NULL::smallint AS retry_count, NULL::smallint AS max_retries, NULL::integer AS attempts, NULL::text AS access_token_ciphertext, NULL::text AS access_token_key_id
  FROM done
UNION ALL
SELECT false, id, NULL, guid, config_id, partner_id, url, payload, retry_count, max_retries, attempts, access_token_ciphertext, access_token_key_id
  FROM claimed`;

/** A delivery to record. */
export interface Delivery {
  id: number;
  attempt: number;
  statusCode: number;
  /** How long ago the receiver answered: the record is made up to a few milliseconds later. */
  agoMs: number;
}

const PURGE_ENDED_SQL = `WITH gone AS (
  DELETE FROM notifications WHERE ctid IN (
    SELECT ctid FROM notifications WHERE created_at < $1 AND status IN ('delivered', 'failed', 'cancelled') LIMIT $2
  )
  RETURNING 1
) SELECT count(*)::int AS n FROM gone`;

/** Every statement on the notifications outbox (the rows themselves are written by the triggers of migration 0024). */
export class NotificationOutboxRepository {
  readonly #sql: SqlClient;

  constructor(sql: SqlClient) {
    this.#sql = sql;
  }

  /**
   * Records `done` as delivered and claims up to `limit` due notifications, in one statement.
   * Returns the claimed ones, and for each delivery recorded the seconds from the change's commit
   * to now (a delivery whose claim was no longer this worker's is not recorded, and not there).
   */
  async recordAndClaim(
    done: readonly Delivery[],
    claim: { limit: number; busyConfigs: readonly number[]; leaseMs: number; perConfig: number },
  ): Promise<{ claimed: ClaimedNotification[]; lags: Map<number, number> }> {
    const rows = await this.#sql.query<{
      recorded: boolean;
      id: string | number;
      lag: number | string | null;
      guid: string;
      config_id: number;
      partner_id: string;
      url: string;
      payload: string;
      retry_count: number;
      max_retries: number;
      attempts: number;
      access_token_ciphertext: string | null;
      access_token_key_id: string | null;
    }>(
      RECORD_AND_CLAIM_SQL,
      [
        done.map((d) => d.id),
        done.map((d) => d.attempt),
        done.map((d) => d.statusCode),
        claim.limit,
        claim.busyConfigs,
        claim.leaseMs,
        claim.perConfig,
        done.map((d) => d.agoMs),
      ],
      // Not prepared: no plan fits every size of the outbox. A generic plan kept from claims on
      // an empty outbox checked each candidate's earlier notifications by reading every pending
      // row of its URL (16 x the backlog a claim), and a settlement's burst took minutes to drain.
    );
    const claimed: ClaimedNotification[] = [];
    const lags = new Map<number, number>();
    for (const r of rows) {
      if (r.recorded) {
        lags.set(Number(r.id), Number(r.lag));
        continue;
      }
      claimed.push({
        id: Number(r.id),
        guid: r.guid,
        configId: Number(r.config_id),
        partnerId: r.partner_id,
        url: r.url,
        payload: r.payload,
        retryCount: Number(r.retry_count),
        maxRetries: Number(r.max_retries),
        attempt: Number(r.attempts),
        accessToken: r.access_token_ciphertext ? { ciphertext: r.access_token_ciphertext, keyId: r.access_token_key_id! } : null,
      });
    }
    return { claimed, lags };
  }

  /**
   * Records a failed attempt: due again in `retryInMs` with one more retry counted, or failed for
   * good when its retries are spent. Returns which, or undefined when the claim was no longer this worker's.
   */
  async attemptFailed(id: number, attempt: number, failure: { statusCode: number | null; error: string }, retryInMs: number): Promise<'retried' | 'failed' | undefined> {
    const [row] = await this.#sql.query<{ status: string }>(
      `UPDATE notifications
          SET status = CASE WHEN retry_count < max_retries THEN 'pending' ELSE 'failed' END,
              retry_count = CASE WHEN retry_count < max_retries THEN retry_count + 1 ELSE retry_count END,
              next_attempt_at = clock_timestamp() + $5 * interval '1 millisecond', modified_at = clock_timestamp(),
              last_status_code = $3, last_error = $4
        WHERE id = $1 AND attempts = $2 AND status = 'pending'
        RETURNING status`,
      [id, attempt, failure.statusCode, failure.error, retryInMs],
      { prepare: true },
    );
    if (!row) return undefined;
    return row.status === 'failed' ? 'failed' : 'retried';
  }

  /**
   * Recurring charges whose profile never moved after the charge (an operator resolved a held
   * charge; a partner changed the profile meanwhile): after `olderThanMs` they are sent with the
   * profile as it is, rather than never.
   */
  async releaseWaiting(olderThanMs: number): Promise<number> {
    const rows = await this.#sql.query(
      `UPDATE notifications SET payload = notification_payload(payment_id, payment_result, process_status), status = 'pending',
              next_attempt_at = clock_timestamp(), modified_at = clock_timestamp()
        WHERE status = 'waiting' AND created_at < clock_timestamp() - $1 * interval '1 millisecond' RETURNING id`,
      [olderThanMs],
    );
    return rows.length;
  }

  /**
   * Deletes up to `limit` notifications created before `before` whose delivery has ended
   * (delivered, failed, cancelled); how many. One still waiting or pending is kept whatever its age.
   */
  async purgeEnded(before: Date, limit: number): Promise<number> {
    const [row] = await this.#sql.query<{ n: number }>(PURGE_ENDED_SQL, [before, limit]);
    return Number(row?.n ?? 0);
  }

  /** Notifications still to be sent (waiting, pending), for the backlog gauge. */
  async backlog(): Promise<number> {
    const [row] = await this.#sql.query<{ n: string | number }>("SELECT count(*) AS n FROM notifications WHERE status IN ('waiting', 'pending')");
    return Number(row?.n ?? 0);
  }

  /** The notifications of one of the partner's payments (by PaymentId and/or PaymentExternalId), oldest first. */
  async history(partnerId: string, ref: { paymentId?: number; paymentExternalId?: string }): Promise<NotificationRecord[]> {
    const params: unknown[] = [partnerId];
    const conditions = ['n.partner_id = $1', 'p.partner_id = $1'];
    if (ref.paymentId !== undefined) {
      params.push(ref.paymentId);
      conditions.push(`p.payment_id = $${params.length}`);
    }
    if (ref.paymentExternalId !== undefined) {
      params.push(ref.paymentExternalId);
      conditions.push(`p.transaction_id = $${params.length}`);
    }
    const rows = await this.#sql.query<HistoryRow>(`${HISTORY_SELECT} WHERE ${conditions.join(' AND ')} ORDER BY n.id`, params);
    return rows.map(toRecord);
  }

  /** Notifications for operators: the latest first, filtered by partner and status. */
  async list(filter: { partnerId?: string; status?: NotificationStatus; paymentGuid?: string; limit: number }): Promise<NotificationRecord[]> {
    const params: unknown[] = [];
    const conditions: string[] = [];
    if (filter.partnerId) {
      params.push(filter.partnerId);
      conditions.push(`n.partner_id = $${params.length}`);
    }
    if (filter.status) {
      params.push(filter.status);
      conditions.push(`n.status = $${params.length}`);
    }
    if (filter.paymentGuid) {
      params.push(filter.paymentGuid);
      conditions.push(`n.payment_id = $${params.length}`);
    }
    params.push(filter.limit);
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    const rows = await this.#sql.query<HistoryRow>(`${HISTORY_SELECT} ${where} ORDER BY n.id DESC LIMIT $${params.length}`, params);
    return rows.map(toRecord);
  }

  /**
   * Sends notifications again: due now, with their retries counted afresh. Only delivered and
   * failed ones (a pending one is on its way already); `partnerId` limits it to that partner's.
   * Returns the notifications made due.
   */
  async redeliver(ids: readonly number[], partnerId: string | undefined): Promise<NotificationRecord[]> {
    const rows = await this.#sql.query<{ id: string }>(
      `UPDATE notifications n SET status = 'pending', retry_count = 0, next_attempt_at = clock_timestamp(), modified_at = clock_timestamp(),
              delivered_at = NULL
         FROM notification_configs c
        WHERE n.id = ANY($1::bigint[]) AND ($2::uuid IS NULL OR n.partner_id = $2) AND n.status IN ('delivered', 'failed')
          AND c.id = n.config_id AND c.deleted_at IS NULL
        RETURNING n.id`,
      [ids, partnerId ?? null],
    );
    if (rows.length === 0) return [];
    await this.#sql.query("SELECT pg_notify('payments_notifications', '')");
    const found = await this.#sql.query<HistoryRow>(`${HISTORY_SELECT} WHERE n.id = ANY($1::bigint[]) ORDER BY n.id`, [rows.map((r) => r.id)]);
    return found.map(toRecord);
  }

  /** The notifications of a partner, by id (to tell a redelivery's unknown ids from the ones not redelivered). */
  async byIds(ids: readonly number[], partnerId: string | undefined): Promise<NotificationRecord[]> {
    const rows = await this.#sql.query<HistoryRow>(`${HISTORY_SELECT} WHERE n.id = ANY($1::bigint[]) AND ($2::uuid IS NULL OR n.partner_id = $2) ORDER BY n.id`, [ids, partnerId ?? null]);
    return rows.map(toRecord);
  }
}
