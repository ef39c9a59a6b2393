import type { DbOrTx, SqlClient } from '../../platform/database/database.ts';
import { sql } from '../../platform/database/drizzle.ts';
import { rowsOf } from '../../platform/database/rows.ts';

/** A partner's references as one row: each found one, or null. */
export interface ReferencesRow {
  processor: { id: string; adapter: string; payment_method_types: number[] } | null;
  source: { id: string; duplicate_check: boolean } | null;
  organization_id: string | null;
  charity_id: string | null;
}

/** $1 partner, $2 ProcessorGuid, $3 MKey, $4 IntegrationSource, $5 OrganizationGuid, $6 CharityId. */
const REFERENCES_SQL = `
SELECT
  (SELECT json_build_object('id', id, 'adapter', adapter, 'payment_method_types', payment_method_types) FROM processors
    WHERE partner_id = $1
      AND ($2::uuid IS NULL OR id = $2::uuid)
      AND ($3::text IS NULL OR mkey = $3::text)
      AND ($2::uuid IS NOT NULL OR $3::text IS NOT NULL OR is_default)
    LIMIT 1) AS processor,
  (SELECT json_build_object('id', id, 'duplicate_check', duplicate_check) FROM integration_sources
    WHERE partner_id = $1 AND CASE WHEN $4::uuid IS NULL THEN is_default ELSE id = $4::uuid END
    LIMIT 1) AS source,
  (SELECT id FROM organizations
    WHERE partner_id = $1 AND CASE WHEN $5::uuid IS NULL THEN is_default ELSE id = $5::uuid END
    LIMIT 1) AS organization_id,
  (SELECT id FROM charities WHERE $6::uuid IS NOT NULL AND id = $6::uuid) AS charity_id`;

/** The fixed text is prepared once per connection: it runs on every payment. */
const PREPARED = { prepare: true } as const;

/**
 * The same statement for a caller's transaction (a query builder's transaction runs its own
 * statements only): each `$n` becomes a bound parameter.
 */
function inTransaction(params: unknown[]) {
  const parts = REFERENCES_SQL.split(/\$(\d)/);
  return sql.join(parts.map((part, i) => (i % 2 === 0 ? sql.raw(part) : sql`${params[Number(part) - 1]}`)));
}

export class ReferenceRepository {
  readonly #sql: SqlClient;

  constructor(sql: SqlClient) {
    this.#sql = sql;
  }

  /**
   * Every reference in one round trip: the named ones if they are the partner's, else its
   * defaults. Inside `tx` when given (the caller's transaction).
   */
  async find(partnerId: string, processorId: string | null, mkey: string | null, sourceId: string | null, organizationId: string | null, charityId: string | null, tx?: DbOrTx): Promise<ReferencesRow | undefined> {
    const params = [partnerId, processorId, mkey, sourceId, organizationId, charityId];
    if (tx) return rowsOf<ReferencesRow>(await tx.execute(inTransaction(params)))[0];
    const [row] = await this.#sql.query<ReferencesRow>(REFERENCES_SQL, params, PREPARED);
    return row;
  }
}
