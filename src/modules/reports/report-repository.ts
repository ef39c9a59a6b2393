import type { RowCursor, SqlClient } from '../../platform/database/database.ts';
import type { BoundValue, Condition, ReportCriteria, ReportPaging, ReportSort } from './report-criteria.ts';
import type { ReportFieldKey, ReportRow } from './report-fields.ts';

/**
 * Every statement of the transaction reports: a read model over payments, their lines,
 * refunds and voids, settlement batches and the partner's sources, organizations, charities and
 * recurring profiles (other modules' tables, read in this module's own SQL). Field names come
 * from the fixed catalogue below; every value a request gives is a bound parameter.
 */

/** Whose payments a report reads: always one partner's, narrowed to sources or one organization. */
export type ReportScope =
  | { kind: 'sources'; partnerId: string; integrationSourceIds?: readonly string[] }
  | { kind: 'organization'; partnerId: string; organizationId: string };

type JoinName = 'lines' | 'refund' | 'void' | 'batch' | 'source' | 'organization' | 'charity' | 'profile';

/** Each join finds at most one row per payment (the lines' totals: exactly one). */
const JOINS: Readonly<Record<JoinName, string>> = {
  lines: `CROSS JOIN LATERAL (
    SELECT coalesce(sum(pl.amount_cents), 0)::bigint AS amount_cents,
           coalesce(sum(pl.tip_cents), 0)::bigint AS tip_cents,
           coalesce(sum(pl.tax_cents), 0)::bigint AS tax_cents,
           coalesce(sum(pl.total_fees_cents), 0)::bigint AS fees_cents,
           coalesce(sum((pl.fees->>'totalCommissionAmountCents')::bigint), 0)::bigint AS commission_cents,
           coalesce(sum((pl.fees->>'partnerCommissionAmountCents')::bigint), 0)::bigint AS partner_commission_cents,
           coalesce(sum((pl.fees->>'platformCommissionAmountCents')::bigint), 0)::bigint AS platform_commission_cents
      FROM payment_lines pl WHERE pl.payment_id = p.id) l`,
  // At most one refund or void of a payment goes through (payment_adjustments_one_effective).
  refund: `LEFT JOIN payment_adjustments rf ON rf.payment_id = p.id AND rf.status = 'approved' AND rf.kind = 'refund'`,
  void: `LEFT JOIN payment_adjustments vd ON vd.payment_id = p.id AND vd.status = 'approved' AND vd.kind = 'void'`,
  batch: 'LEFT JOIN settlement_batches sb ON sb.id = p.settlement_batch_id',
  source: 'LEFT JOIN integration_sources src ON src.id = p.integration_source_id',
  organization: 'LEFT JOIN organizations org ON org.id = p.organization_id',
  charity: 'LEFT JOIN charities ch ON ch.id = p.charity_id',
  profile: 'LEFT JOIN recurring_profiles rp ON rp.id = p.recurring_profile_id',
};
const JOIN_ORDER = Object.keys(JOINS) as JoinName[];

/** The SQL type a value of the column is bound as. */
type SqlType = 'int' | 'bigint' | 'text' | 'uuid' | 'timestamptz' | 'date';

interface Column {
  sql: string;
  type: SqlType;
  join?: JoinName;
}

const col = (sql: string, type: SqlType, join?: JoinName): Column => (join ? { sql, type, join } : { sql, type });

/** The SQL of every field of the row (fields that show a value's name share their value's column). */
const COLUMNS: Readonly<Record<ReportFieldKey, Column>> = {
  paymentId: col('p.payment_id', 'int'),
  paymentGuid: col('p.id', 'uuid'),
  paymentDate: col('p.created_at', 'timestamptz'),
  processedDate: col('p.processed_at', 'timestamptz'),
  tranId: col('p.tran_id', 'text'),
  paymentExternalId: col('p.transaction_id', 'text'),
  authCode: col('p.auth_code', 'text'),
  paymentMethod: col('p.method', 'text'),
  paymentMethodTypeId: col('p.payment_method_type_id', 'int'),
  cardType: col('p.card_type', 'text'),
  cardLastFour: col('p.card_last4', 'text'),
  checkAccountLastFour: col('p.check_account_last4', 'text'),
  currency: col('p.currency', 'text'),
  amountCents: col('l.amount_cents', 'bigint', 'lines'),
  tipCents: col('l.tip_cents', 'bigint', 'lines'),
  taxCents: col('l.tax_cents', 'bigint', 'lines'),
  shippingFeeCents: col('p.shipping_fee_cents', 'bigint'),
  surchargeCents: col('p.surcharge_cents', 'bigint'),
  totalAmountCents: col('p.total_amount_cents', 'bigint'),
  totalFeesCents: col('l.fees_cents', 'bigint', 'lines'),
  totalCommissionCents: col('l.commission_cents', 'bigint', 'lines'),
  partnerCommissionCents: col('l.partner_commission_cents', 'bigint', 'lines'),
  platformCommissionCents: col('l.platform_commission_cents', 'bigint', 'lines'),
  netAmountCents: col('(p.total_amount_cents - l.fees_cents)', 'bigint', 'lines'),
  processStatus: col('p.process_status', 'int'),
  paymentResult: col('p.payment_result', 'int'),
  responseCode: col('p.response_code', 'text'),
  responseMessage: col('p.message', 'text'),
  settlementDate: col('p.settled_at', 'timestamptz'),
  settlementBatch: col('sb.batch_no', 'int', 'batch'),
  refundedAmountCents: col('rf.amount_cents', 'bigint', 'refund'),
  refundedDate: col('rf.processed_at', 'timestamptz', 'refund'),
  voidedAmountCents: col('vd.amount_cents', 'bigint', 'void'),
  voidedDate: col('vd.processed_at', 'timestamptz', 'void'),
  processorGuid: col('p.processor_id', 'uuid'),
  integrationSourceGuid: col('p.integration_source_id', 'uuid'),
  integrationSourceName: col('src.name', 'text', 'source'),
  organizationGuid: col('p.organization_id', 'uuid'),
  organizationName: col('org.name', 'text', 'organization'),
  charityId: col('p.charity_id', 'uuid'),
  charityName: col('ch.name', 'text', 'charity'),
  recurringProfileGuid: col('p.recurring_profile_id', 'uuid'),
  recurringProfileId: col('rp.profile_id', 'int', 'profile'),
  billDate: col('p.bill_date', 'date'),
  payLinkId: col('p.pay_link_id', 'text'),
  firstName: col('p.first_name', 'text'),
  lastName: col('p.last_name', 'text'),
  email: col('p.email', 'text'),
  externalConstituentId: col('p.external_constituent_id', 'text'),
};

const KEYS = Object.keys(COLUMNS) as ReportFieldKey[];
const SELECT_LIST = KEYS.map((key) => `${COLUMNS[key].sql} AS "${key}"`).join(',\n  ');

/** A statement's text and its bound values. */
export interface Statement {
  text: string;
  params: unknown[];
}

class Params {
  readonly values: unknown[] = [];
  bind(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

/** Text for LIKE with its wildcards taken literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

function conditionSql(column: Column, condition: Condition, params: Params): string {
  const { sql, type } = column;
  const bind = (value: BoundValue) => params.bind(value, type);
  switch (condition.kind) {
    case 'null':
      return `${sql} IS ${condition.negate ? 'NOT ' : ''}NULL`;
    case 'text': {
      const text = likeLiteral(condition.text);
      const pattern = condition.match === 'contains' ? `%${text}%` : condition.match === 'startsWith' ? `${text}%` : `%${text}`;
      return `${sql} ILIKE ${params.bind(pattern, 'text')}`;
    }
    case 'in': {
      const [first] = condition.values;
      const single = condition.values.length === 1;
      if (!condition.negate) return single ? `${sql} = ${bind(first!)}` : `${sql} = ANY(${params.bind(condition.values, `${type}[]`)})`;
      return single ? `(${sql} IS NULL OR ${sql} <> ${bind(first!)})` : `(${sql} IS NULL OR ${sql} <> ALL(${params.bind(condition.values, `${type}[]`)}))`;
    }
    case 'range': {
      const parts: string[] = [];
      if (condition.lower) parts.push(`${sql} ${condition.lower.inclusive ? '>=' : '>'} ${bind(condition.lower.value)}`);
      if (condition.upper) parts.push(`${sql} ${condition.upper.inclusive ? '<=' : '<'} ${bind(condition.upper.value)}`);
      const range = parts.join(' AND ');
      return condition.negate ? `(${sql} IS NULL OR NOT (${range}))` : range;
    }
  }
}

/** The partner's payments in scope, and the filters. */
function whereSql(scope: ReportScope, criteria: ReportCriteria, params: Params): string {
  const where = [`p.partner_id = ${params.bind(scope.partnerId, 'uuid')}`];
  if (scope.kind === 'organization') where.push(`p.organization_id = ${params.bind(scope.organizationId, 'uuid')}`);
  else if (scope.integrationSourceIds?.length === 1) where.push(`p.integration_source_id = ${params.bind(scope.integrationSourceIds[0], 'uuid')}`);
  else if (scope.integrationSourceIds) where.push(`p.integration_source_id = ANY(${params.bind(scope.integrationSourceIds, 'uuid[]')})`);
  for (const filter of criteria.filters) where.push(conditionSql(COLUMNS[filter.field.key], filter.condition, params));
  return where.join('\n  AND ');
}

/** The joins the given fields need, in a fixed order. */
function joinsFor(keys: Iterable<ReportFieldKey>): string {
  const needed = new Set<JoinName>();
  for (const key of keys) {
    const join = COLUMNS[key].join;
    if (join) needed.add(join);
  }
  return JOIN_ORDER.filter((j) => needed.has(j))
    .map((j) => JOINS[j])
    .join('\n');
}

const ALL_JOINS = JOIN_ORDER.map((j) => JOINS[j]).join('\n');

/**
 * The sort, then PaymentId in the direction of the first column: a total order, so pages and
 * keyset batches neither repeat nor skip a payment. NULLs sort as the largest values (PostgreSQL's
 * default: last ascending, first descending).
 */
function sortKeys(sort: readonly ReportSort[]): SortKey[] {
  const keys = sort.filter((s) => s.field.key !== 'paymentId').map((s) => ({ column: COLUMNS[s.field.key], descending: s.descending, nullable: s.field.nullable }));
  const idSort = sort.find((s) => s.field.key === 'paymentId');
  // PaymentId is unique: nothing after it changes the order.
  const cut = idSort ? sort.indexOf(idSort) : sort.length;
  return [...keys.slice(0, cut), { column: COLUMNS.paymentId, descending: idSort?.descending ?? sort[0]?.descending ?? true, nullable: false }];
}

interface SortKey {
  column: Column;
  descending: boolean;
  nullable: boolean;
}

const orderBySql = (keys: SortKey[]) => keys.map((k) => `${k.column.sql}${k.descending ? ' DESC' : ''}`).join(', ');

/** One page of the report (OFFSET paging: PageIndex is the API's). */
export function pageStatement(scope: ReportScope, criteria: ReportCriteria, paging: ReportPaging): Statement {
  const params = new Params();
  const where = whereSql(scope, criteria, params);
  const limit = params.bind(paging.pageSize, 'int');
  const offset = params.bind((paging.pageIndex - 1) * paging.pageSize, 'bigint');
  return {
    text: `SELECT ${SELECT_LIST}\nFROM payments p\n${ALL_JOINS}\nWHERE ${where}\nORDER BY ${orderBySql(sortKeys(criteria.sort))}\nLIMIT ${limit} OFFSET ${offset}`,
    params: params.values,
  };
}

/** How many payments the report holds: only the joins its filters need. */
export function countStatement(scope: ReportScope, criteria: ReportCriteria): Statement {
  const params = new Params();
  const where = whereSql(scope, criteria, params);
  return {
    text: `SELECT count(*)::bigint AS total\nFROM payments p\n${joinsFor(criteria.filters.map((f) => f.field.key))}\nWHERE ${where}`,
    params: params.values,
  };
}

/** Every payment of the report, in order (read through a cursor). */
export function exportStatement(scope: ReportScope, criteria: ReportCriteria): Statement {
  const params = new Params();
  const where = whereSql(scope, criteria, params);
  return { text: `SELECT ${SELECT_LIST}\nFROM payments p\n${ALL_JOINS}\nWHERE ${where}\nORDER BY ${orderBySql(sortKeys(criteria.sort))}`, params: params.values };
}

/** The sort keys of the last row of a keyset batch, as the database writes them (exact: no rounding of times). */
type KeysetPosition = (string | null)[];

/**
 * The next batch after `after` (none: the first): the export's order without a cursor. Each key
 * comes back as text (`_k0`...) to be bound again as it was read.
 */
export function keysetStatement(scope: ReportScope, criteria: ReportCriteria, after: KeysetPosition | undefined, rows: number): Statement {
  const params = new Params();
  const keys = sortKeys(criteria.sort);
  let where = whereSql(scope, criteria, params);
  if (after) {
    const bound = (i: number) => params.bind(after[i], keys[i]!.column.type);
    const alternatives: string[] = [];
    for (let i = 0; i < keys.length; i++) {
      const parts: string[] = [];
      for (let j = 0; j < i; j++) parts.push(after[j] === null ? `${keys[j]!.column.sql} IS NULL` : `${keys[j]!.column.sql} = ${bound(j)}`);
      const { column, descending } = keys[i]!;
      const value = after[i];
      // NULL is the largest value: last when ascending, first when descending.
      const beyond = descending ? (value === null ? `${column.sql} IS NOT NULL` : `${column.sql} < ${bound(i)}`) : value === null ? 'false' : `(${column.sql} > ${bound(i)} OR ${column.sql} IS NULL)`;
      parts.push(beyond);
      alternatives.push(parts.join(' AND '));
    }
    where += `\n  AND (${alternatives.join('\n    OR ')})`;
    // The same bound on the first key alone, which an index can start from.
    const first = keys[0]!;
    if (after[0] !== null && first.descending) where += `\n  AND ${first.column.sql} <= ${bound(0)}`;
    else if (after[0] !== null) where += first.nullable ? `\n  AND (${first.column.sql} >= ${bound(0)} OR ${first.column.sql} IS NULL)` : `\n  AND ${first.column.sql} >= ${bound(0)}`;
  }
  const keyList = keys.map((k, i) => `(${k.column.sql})::text AS "_k${i}"`).join(', ');
  return {
    text: `SELECT ${SELECT_LIST},\n  ${keyList}\nFROM payments p\n${ALL_JOINS}\nWHERE ${where}\nORDER BY ${orderBySql(keys)}\nLIMIT ${params.bind(rows, 'int')}`,
    params: params.values,
  };
}

/** A report's rows in batches, in order, whatever its size. */
export interface RowBatches {
  /** The next batch; empty when the report is done. */
  next(): Promise<ReportRow[]>;
  /** Stops reading (the query too, if one runs); safe to call twice. */
  close(): Promise<void>;
}

/** How many rows an export reads per round trip. */
export const EXPORT_BATCH_ROWS = 1000;

export class ReportRepository {
  readonly #sql: SqlClient;
  readonly #openCursor: (<T>(text: string, params: unknown[]) => Promise<RowCursor<T>>) | undefined;

  /** `openCursor`: the store's server-side cursors, when it has them (PostgreSQL); else keyset batches. */
  constructor(deps: { sql: SqlClient; openCursor?: <T>(text: string, params: unknown[]) => Promise<RowCursor<T>> }) {
    this.#sql = deps.sql;
    this.#openCursor = deps.openCursor;
  }

  /** Which of `ids` are integration sources of the partner. */
  async partnerSources(partnerId: string, ids: readonly string[]): Promise<string[]> {
    const rows = await this.#sql.query<{ id: string }>('SELECT id FROM integration_sources WHERE partner_id = $1::uuid AND id = ANY($2::uuid[])', [partnerId, ids]);
    return rows.map((r) => r.id);
  }

  /** Whether the organization is the partner's. */
  async isPartnerOrganization(partnerId: string, organizationId: string): Promise<boolean> {
    const rows = await this.#sql.query('SELECT 1 FROM organizations WHERE partner_id = $1::uuid AND id = $2::uuid', [partnerId, organizationId]);
    return rows.length > 0;
  }

  async page(scope: ReportScope, criteria: ReportCriteria, paging: ReportPaging): Promise<{ rows: ReportRow[]; total: number }> {
    const page = pageStatement(scope, criteria, paging);
    const rows = await this.#sql.query<ReportRow>(page.text, page.params);
    const offset = (paging.pageIndex - 1) * paging.pageSize;
    // A short page that is not past the end says the total itself.
    if (rows.length < paging.pageSize && (rows.length > 0 || offset === 0)) return { rows, total: offset + rows.length };
    const count = countStatement(scope, criteria);
    const [row] = await this.#sql.query<{ total: number }>(count.text, count.params);
    return { rows, total: row?.total ?? 0 };
  }

  /** The rows of an export: a server-side cursor where the store has them, keyset batches elsewhere. */
  async batches(scope: ReportScope, criteria: ReportCriteria, batchRows = EXPORT_BATCH_ROWS): Promise<RowBatches> {
    if (this.#openCursor) {
      const statement = exportStatement(scope, criteria);
      const cursor = await this.#openCursor<ReportRow>(statement.text, statement.params);
      return {
        next: async () => {
          const rows = await cursor.read(batchRows);
          // The last batch gives the connection back at once, whoever forgets to close.
          if (rows.length < batchRows) await cursor.close();
          return rows;
        },
        close: () => cursor.close(),
      };
    }
    return this.#keysetBatches(scope, criteria, batchRows);
  }

  #keysetBatches(scope: ReportScope, criteria: ReportCriteria, batchRows: number): RowBatches {
    const keyCount = sortKeys(criteria.sort).length;
    let after: KeysetPosition | undefined;
    let done = false;
    return {
      next: async () => {
        if (done) return [];
        const statement = keysetStatement(scope, criteria, after, batchRows);
        const rows = await this.#sql.query<ReportRow & Record<string, string | null>>(statement.text, statement.params);
        if (rows.length < batchRows) done = true;
        const last = rows.at(-1);
        if (last) after = Array.from({ length: keyCount }, (_, i) => last[`_k${i}`] ?? null);
        for (const row of rows) for (let i = 0; i < keyCount; i++) delete row[`_k${i}`];
        return rows;
      },
      close: async () => {
        done = true;
      },
    };
  }
}
