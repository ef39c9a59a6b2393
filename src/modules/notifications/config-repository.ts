import type { SqlClient } from '../../platform/database/database.ts';

/** A partner's notification URL as stored: the AccessToken sealed. */
export interface StoredConfig {
  id: number;
  partnerId: string;
  url: string;
  retries: number;
  accessToken: { ciphertext: string; keyId: string; hint: string } | null;
  paused: boolean;
  createdAt: Date;
  updatedAt: Date;
}

/** A partner's signing secrets as stored, sealed. */
export interface StoredSecrets {
  partnerId: string;
  current: { ciphertext: string; keyId: string };
  createdAt: Date;
  previous: { ciphertext: string; keyId: string; expiresAt: Date } | null;
}

interface ConfigRow {
  id: number;
  partner_id: string;
  url: string;
  retries: number;
  access_token_ciphertext: string | null;
  access_token_key_id: string | null;
  access_token_hint: string | null;
  paused: boolean;
  created_at: Date | string;
  updated_at: Date | string;
}

const CONFIG_COLUMNS = 'id, partner_id, url, retries, access_token_ciphertext, access_token_key_id, access_token_hint, paused, created_at, updated_at';

function toConfig(r: ConfigRow): StoredConfig {
  return {
    id: Number(r.id),
    partnerId: r.partner_id,
    url: r.url,
    retries: Number(r.retries),
    accessToken: r.access_token_ciphertext ? { ciphertext: r.access_token_ciphertext, keyId: r.access_token_key_id!, hint: r.access_token_hint ?? '' } : null,
    paused: r.paused,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  };
}

/** A config to write: a new one (no id) or a change of one of the partner's. */
export interface ConfigWrite {
  id?: number;
  url: string;
  retries: number;
  /** undefined: keep the stored one (a change) or none (a new one); null: remove it. */
  accessToken?: { ciphertext: string; keyId: string; hint: string } | null;
}

/** Every statement on notification_configs and notification_secrets. */
export class NotificationConfigRepository {
  readonly #sql: SqlClient;

  constructor(sql: SqlClient) {
    this.#sql = sql;
  }

  async list(partnerId: string): Promise<StoredConfig[]> {
    const rows = await this.#sql.query<ConfigRow>(`SELECT ${CONFIG_COLUMNS} FROM notification_configs WHERE partner_id = $1 AND deleted_at IS NULL ORDER BY id`, [partnerId]);
    return rows.map(toConfig);
  }

  async find(id: number): Promise<StoredConfig | undefined> {
    const [row] = await this.#sql.query<ConfigRow>(`SELECT ${CONFIG_COLUMNS} FROM notification_configs WHERE id = $1 AND deleted_at IS NULL`, [id]);
    return row && toConfig(row);
  }

  /** Ids a vault key rotation must keep working (the keys the sealed tokens and secrets are under). */
  async keyIdsInUse(): Promise<string[]> {
    const rows = await this.#sql.query<{ key_id: string }>(
      `SELECT access_token_key_id AS key_id FROM notification_configs WHERE access_token_key_id IS NOT NULL
       UNION SELECT secret_key_id FROM notification_secrets
       UNION SELECT previous_key_id FROM notification_secrets WHERE previous_key_id IS NOT NULL`,
    );
    return rows.map((r) => r.key_id);
  }

  /**
   * Writes the partner's configs in one statement: the new ones inserted, the changed ones
   * updated, `removed` ids marked deleted (their notifications not yet sent are cancelled). Ids
   * not the partner's change nothing. Returns the partner's live configs.
   */
  async save(partnerId: string, writes: readonly ConfigWrite[], removed: readonly number[], now: Date): Promise<StoredConfig[]> {
    const rows = writes.map((w) => ({
      id: w.id ?? null,
      url: w.url,
      retries: w.retries,
      token_set: w.accessToken !== undefined,
      ciphertext: w.accessToken?.ciphertext ?? null,
      key_id: w.accessToken?.keyId ?? null,
      hint: w.accessToken?.hint ?? null,
    }));
    await this.#sql.query(
      `WITH w AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS w(id integer, url text, retries smallint, token_set boolean, ciphertext text, key_id text, hint text)),
       ins AS (
         INSERT INTO notification_configs (partner_id, url, retries, access_token_ciphertext, access_token_key_id, access_token_hint, created_at, updated_at)
         SELECT $1, url, retries, ciphertext, key_id, hint, $4, $4 FROM w WHERE id IS NULL RETURNING id),
       upd AS (
         UPDATE notification_configs c SET url = w.url, retries = w.retries, updated_at = $4,
                access_token_ciphertext = CASE WHEN w.token_set THEN w.ciphertext ELSE c.access_token_ciphertext END,
                access_token_key_id = CASE WHEN w.token_set THEN w.key_id ELSE c.access_token_key_id END,
                access_token_hint = CASE WHEN w.token_set THEN w.hint ELSE c.access_token_hint END
           FROM w WHERE c.id = w.id AND c.partner_id = $1 AND c.deleted_at IS NULL RETURNING c.id),
       del AS (
         UPDATE notification_configs SET deleted_at = $4, updated_at = $4, access_token_ciphertext = NULL, access_token_key_id = NULL, access_token_hint = NULL
          WHERE id = ANY($3::integer[]) AND partner_id = $1 AND deleted_at IS NULL RETURNING id)
       UPDATE notifications SET status = 'cancelled', modified_at = $4, last_error = 'The notification URL was removed.'
        WHERE config_id IN (SELECT id FROM del) AND status IN ('waiting', 'pending')`,
      [partnerId, JSON.stringify(rows), removed, now.toISOString()],
    );
    return this.list(partnerId);
  }

  /** Pauses or resumes configs: all of a partner's, or one. Returns how many changed. */
  async setPaused(target: { partnerId: string } | { configId: number }, paused: boolean, now: Date): Promise<number> {
    const [column, value] = 'partnerId' in target ? ['partner_id', target.partnerId] : ['id', target.configId];
    const rows = await this.#sql.query(
      `UPDATE notification_configs SET paused = $2, updated_at = $3 WHERE ${column} = $1 AND deleted_at IS NULL AND paused <> $2 RETURNING id`,
      [value, paused, now.toISOString()],
    );
    return rows.length;
  }

  async secrets(partnerId: string): Promise<StoredSecrets | undefined> {
    const [r] = await this.#sql.query<{
      partner_id: string;
      secret_ciphertext: string;
      secret_key_id: string;
      created_at: Date | string;
      previous_ciphertext: string | null;
      previous_key_id: string | null;
      previous_expires_at: Date | string | null;
    }>('SELECT * FROM notification_secrets WHERE partner_id = $1', [partnerId]);
    if (!r) return undefined;
    return {
      partnerId: r.partner_id,
      current: { ciphertext: r.secret_ciphertext, keyId: r.secret_key_id },
      createdAt: new Date(r.created_at),
      previous: r.previous_ciphertext ? { ciphertext: r.previous_ciphertext, keyId: r.previous_key_id!, expiresAt: new Date(r.previous_expires_at!) } : null,
    };
  }

  /** A first secret, unless the partner has one already (then nothing changes). */
  async createSecret(partnerId: string, sealed: { ciphertext: string; keyId: string }, now: Date): Promise<void> {
    await this.#sql.query(
      'INSERT INTO notification_secrets (partner_id, secret_ciphertext, secret_key_id, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT (partner_id) DO NOTHING',
      [partnerId, sealed.ciphertext, sealed.keyId, now.toISOString()],
    );
  }

  /** A new current secret; the one it replaces keeps signing until `previousUntil`. */
  async rotateSecret(partnerId: string, sealed: { ciphertext: string; keyId: string }, now: Date, previousUntil: Date): Promise<void> {
    await this.#sql.query(
      `INSERT INTO notification_secrets (partner_id, secret_ciphertext, secret_key_id, created_at) VALUES ($1, $2, $3, $4)
       ON CONFLICT (partner_id) DO UPDATE SET previous_ciphertext = notification_secrets.secret_ciphertext, previous_key_id = notification_secrets.secret_key_id,
              previous_expires_at = $5, secret_ciphertext = EXCLUDED.secret_ciphertext, secret_key_id = EXCLUDED.secret_key_id, created_at = EXCLUDED.created_at`,
      [partnerId, sealed.ciphertext, sealed.keyId, now.toISOString(), previousUntil.toISOString()],
    );
  }

  /** Sealed AccessTokens and signing secrets (current and previous) under a key other than `keyId`. */
  async sealedNotUnder(keyId: string): Promise<{ kind: 'token' | 'secret' | 'previous'; owner: string; ciphertext: string }[]> {
    const rows = await this.#sql.query<{ kind: 'token' | 'secret' | 'previous'; owner: string; ciphertext: string }>(
      `SELECT 'token' AS kind, id::text AS owner, access_token_ciphertext AS ciphertext FROM notification_configs
        WHERE access_token_ciphertext IS NOT NULL AND access_token_key_id <> $1
       UNION ALL SELECT 'secret', partner_id::text, secret_ciphertext FROM notification_secrets WHERE secret_key_id <> $1
       UNION ALL SELECT 'previous', partner_id::text, previous_ciphertext FROM notification_secrets
        WHERE previous_ciphertext IS NOT NULL AND previous_key_id <> $1`,
      [keyId],
    );
    return rows;
  }

  /**
   * Replaces one sealed value by its re-sealing, unless it changed meanwhile (a new token or a
   * secret rotation since it was read: that one is under the current key already).
   */
  async reseal(kind: 'token' | 'secret' | 'previous', owner: string, old: string, sealed: { ciphertext: string; keyId: string }): Promise<void> {
    const sql = {
      token: 'UPDATE notification_configs SET access_token_ciphertext = $3, access_token_key_id = $4 WHERE id = $1::integer AND access_token_ciphertext = $2',
      secret: 'UPDATE notification_secrets SET secret_ciphertext = $3, secret_key_id = $4 WHERE partner_id = $1::uuid AND secret_ciphertext = $2',
      previous: 'UPDATE notification_secrets SET previous_ciphertext = $3, previous_key_id = $4 WHERE partner_id = $1::uuid AND previous_ciphertext = $2',
    }[kind];
    await this.#sql.query(sql, [owner, old, sealed.ciphertext, sealed.keyId]);
  }
}
