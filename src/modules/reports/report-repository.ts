import { createHash } from 'node:crypto';
import type { Readable } from 'node:stream';
import { LRUCache } from 'lru-cache';
import type { RowCursor, SqlClient } from '../../platform/database/database.ts';
import { FORMULA_STARTS } from './report-cells.ts';
import type { BoundValue, Condition, ReportCriteria, ReportPaging, ReportSort } from './report-criteria.ts';
import { REPORT_FIELDS, type ReportField, type ReportFieldKey, type ReportRow } from './report-fields.ts';

/**
 * Every statement of the transaction reports: a read model over payments, their lines,
 * refunds and voids, settlement batches and the partner's sources, organizations, charities and
 * recurring profiles (other modules' tables, read in this module's own SQL). Field names come
 * from the fixed catalogue below; every value a request gives is bound, never written into SQL.
 *
 * The FROM is payments (its lines' totals are on its row) and the refund or void that went
 * through. The names of other rows are subqueries in a page (few relations keep planning cheap,
 * and a page reads the other rows of its own rows only) and joins in an export (one hash join
 * each for the whole file). A filter on another row's field asks whether that row matches
 * (EXISTS), so the index of that row's table can find the payments.
 */

/** Whose payments a report reads: always one partner's, narrowed to sources or one organization. */
export type ReportScope =
  | { kind: 'sources'; partnerId: string; integrationSourceIds?: readonly string[] }
  | { kind: 'organization'; partnerId: string; organizationId: string };

type Lateral = 'adjustment';

/** The refund or void that went through: at most one per payment (payment_adjustments_one_effective). */
const ADJUSTMENT_JOIN = "LEFT JOIN payment_adjustments a ON a.payment_id = p.id AND a.status = 'approved'";

/** The SQL type a value of the column is bound as. */
type SqlType = 'int' | 'bigint' | 'text' | 'uuid' | 'timestamptz' | 'date';

/** A field held by another row than the payment: the row (`link` finds the payment's) and its value. */
interface Lookup {
  from: string;
  link: string;
  value: string;
  /** The payment's column that names the other row, when it is one column (null: no row). */
  via?: string;
}

interface Column {
  /** The value, for the select list, sorting and keyset bounds. */
  sql: string;
  type: SqlType;
  lateral?: Lateral;
  /** Filters test the other row (EXISTS), so an index of its table can be used. */
  lookup?: Lookup;
}

const col = (sql: string, type: SqlType): Column => ({ sql, type });

/**
 * A field of another row (`key`, its primary key, is the payment's column `via`): joined where
 * exports read rows (ROWS_FROM: one hash join, not a subquery per row), a subquery in a page
 * (pageStatement).
 */
const lookup = (type: SqlType, from: string, key: string, via: string, value: string): Column => ({ sql: value, type, lookup: { from, link: `${key} = ${via}`, value, via } });

/** A refund's or a void's amount or time: the joined adjustment's, or (filters) the adjustment itself. */
const adjustment = (kind: 'refund' | 'void', column: string, type: SqlType, value: string): Column => ({
  sql: `CASE WHEN a.kind = '${kind}' THEN a.${column} END`,
  type,
  lateral: 'adjustment',
  lookup: { from: 'payment_adjustments x', link: `x.payment_id = p.id AND x.partner_id = p.partner_id AND x.status = 'approved' AND x.kind = '${kind}'`, value },
});

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
  amountCents: col('p.lines_amount_cents', 'bigint'),
  tipCents: col('p.lines_tip_cents', 'bigint'),
  taxCents: col('p.lines_tax_cents', 'bigint'),
  shippingFeeCents: col('p.shipping_fee_cents', 'bigint'),
  surchargeCents: col('p.surcharge_cents', 'bigint'),
  totalAmountCents: col('p.total_amount_cents', 'bigint'),
  totalFeesCents: col('p.lines_fees_cents', 'bigint'),
  totalCommissionCents: col('p.lines_commission_cents', 'bigint'),
  partnerCommissionCents: col('p.lines_partner_commission_cents', 'bigint'),
  platformCommissionCents: col('p.lines_platform_commission_cents', 'bigint'),
  netAmountCents: col('(p.total_amount_cents - p.lines_fees_cents)', 'bigint'),
  processStatus: col('p.process_status', 'int'),
  paymentResult: col('p.payment_result', 'int'),
  responseCode: col('p.response_code', 'text'),
  responseMessage: col('p.message', 'text'),
  settlementDate: col('p.settled_at', 'timestamptz'),
  settlementBatch: lookup('int', 'settlement_batches b', 'b.id', 'p.settlement_batch_id', 'b.batch_no'),
  refundedAmountCents: adjustment('refund', 'amount_cents', 'bigint', 'x.amount_cents'),
  refundedDate: adjustment('refund', 'processed_at', 'timestamptz', 'x.processed_at'),
  voidedAmountCents: adjustment('void', 'amount_cents', 'bigint', 'x.amount_cents'),
  voidedDate: adjustment('void', 'processed_at', 'timestamptz', 'x.processed_at'),
  processorGuid: col('p.processor_id', 'uuid'),
  integrationSourceGuid: col('p.integration_source_id', 'uuid'),
  integrationSourceName: lookup('text', 'integration_sources s', 's.id', 'p.integration_source_id', 's.name'),
  organizationGuid: col('p.organization_id', 'uuid'),
  organizationName: lookup('text', 'organizations o', 'o.id', 'p.organization_id', 'o.name'),
  charityId: col('p.charity_id', 'uuid'),
  charityName: lookup('text', 'charities c', 'c.id', 'p.charity_id', 'c.name'),
  recurringProfileGuid: col('p.recurring_profile_id', 'uuid'),
  recurringProfileId: lookup('int', 'recurring_profiles r', 'r.id', 'p.recurring_profile_id', 'r.profile_id'),
  billDate: col('p.bill_date', 'date'),
  payLinkId: col('p.pay_link_id', 'text'),
  firstName: col('p.first_name', 'text'),
  lastName: col('p.last_name', 'text'),
  email: col('p.email', 'text'),
  externalConstituentId: col('p.external_constituent_id', 'text'),
};

const KEYS = Object.keys(COLUMNS) as ReportFieldKey[];
/** The payments and the rows their fields come from: what every statement that reads rows selects from. */
const ROWS_FROM = [
  'FROM payments p',
  ADJUSTMENT_JOIN,
  ...KEYS.flatMap((key) => {
    const column = COLUMNS[key];
    return column.lookup && !column.lateral ? [`LEFT JOIN ${column.lookup.from} ON ${column.lookup.link}`] : [];
  }),
].join('\n');
/** An instant as ISO 8601 UTC text, written by the database (cheaper than parsing it into a Date and back). */
const isoInstant = (value: string) => `to_char((${value}) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const SELECT_ROWS = KEYS.map((key) => `${COLUMNS[key].type === 'timestamptz' ? isoInstant(COLUMNS[key].sql) : COLUMNS[key].sql} AS "${key}"`).join(',\n  ');

const sqlText = (text: string) => `'${text.replaceAll("'", "''")}'`;
/** The code points of FORMULA_STARTS: `ascii()` gives a text's first (0 for an empty text), cheaper than comparing texts. */
const FORMULA_CODES = FORMULA_STARTS.map((c) => c.codePointAt(0)).join(', ');

/** A text value, neutralised as report-cells.ts says (the same characters). */
const neutralised = (value: string) => `CASE WHEN ascii(${value}) IN (${FORMULA_CODES}) THEN '''' || ${value} ELSE ${value} END`;

/**
 * Cents as a decimal with two places: an exact numeric times 0.01 has two (a scale of 0 + 2).
 * The thirteen amount cells are a third of the CSV statement's work (one process, 1,000,000
 * rows: 2.8 of 8.7 s); this form takes about a quarter less than building the text from integer
 * arithmetic (sign, whole part, lpad of the cents), and numeric division twice as much as that.
 */
export const centsText = (cents: string) => `((${cents})::numeric * 0.01)::text`;

/** A value of the field as its CSV cell (text): the database writes every cell of the file. */
function csvValue(field: ReportField, value: string): string {
  if (field.showsName && field.enum) {
    const cases = field.enum.entries.map(([stored, name]) => `WHEN ${typeof stored === 'number' ? stored : sqlText(stored)} THEN ${sqlText(name)}`).join(' ');
    return `CASE ${value} ${cases} ELSE (${value})::text END`;
  }
  switch (field.type) {
    case 'amount':
      return centsText(value);
    case 'datetime':
      return isoInstant(value);
    case 'date':
      return `to_char(${value}, 'YYYY-MM-DD')`;
    case 'text':
      return neutralised(value);
    default:
      return `(${value})::text`;
  }
}

/** A field's CSV cell. */
const csvCell = (field: ReportField): string => csvValue(field, COLUMNS[field.key].sql);

/** The CSV file's columns, named as its header says. */
const SELECT_CSV = REPORT_FIELDS.map((field) => `${csvCell(field)} AS "${field.name}"`).join(',\n  ');

/** A statement's text and its bound values. */
export interface Statement {
  text: string;
  params: unknown[];
}

/**
 * Values bound to a statement. COPY takes no parameters: there each value is set for the
 * transaction (`set_config`, itself bound) and the statement reads it back (`current_setting`).
 */
class Params {
  readonly values: unknown[] = [];
  readonly #settings: boolean;
  constructor(settings = false) {
    this.#settings = settings;
  }
  bind(value: unknown, type: string): string {
    this.values.push(value);
    const n = this.values.length;
    return this.#settings ? `current_setting('reports.p${n}')::${type}` : `$${n}::${type}`;
  }
  /** The statement that sets the values of a settings-bound statement. */
  setup(): Statement {
    const sets = this.values.map((_, i) => `set_config('reports.p${i + 1}', $${i + 1}, true)`);
    return { text: `SELECT ${sets.join(', ')}`, params: this.values.map((v) => (Array.isArray(v) ? v : String(v))) };
  }
}

/** Text for LIKE with its wildcards taken literally. */
const likeLiteral = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The condition on a value (`sql`), without the null-keeping of negations. */
function positiveSql(sql: string, type: SqlType, condition: Exclude<Condition, { kind: 'null' }>, params: Params): string {
  const bind = (value: BoundValue) => params.bind(value, type);
  switch (condition.kind) {
    case 'text': {
      const text = likeLiteral(condition.text);
      const pattern = condition.match === 'contains' ? `%${text}%` : condition.match === 'startsWith' ? `${text}%` : `%${text}`;
      return `${sql} ILIKE ${params.bind(pattern, 'text')}`;
    }
    case 'in':
      return condition.values.length === 1 ? `${sql} = ${bind(condition.values[0]!)}` : `${sql} = ANY(${params.bind(condition.values, `${type}[]`)})`;
    case 'range': {
      const parts: string[] = [];
      if (condition.lower) parts.push(`${sql} ${condition.lower.inclusive ? '>=' : '>'} ${bind(condition.lower.value)}`);
      if (condition.upper) parts.push(`${sql} ${condition.upper.inclusive ? '<=' : '<'} ${bind(condition.upper.value)}`);
      return parts.join(' AND ');
    }
  }
}

const negated = (condition: Condition) => (condition.kind === 'in' || condition.kind === 'range') && condition.negate;

function conditionSql(column: Column, condition: Condition, params: Params): string {
  if (column.lookup) {
    const { from, link, value } = column.lookup;
    if (condition.kind === 'null') return `${condition.negate ? '' : 'NOT '}EXISTS (SELECT 1 FROM ${from} WHERE ${link} AND ${value} IS NOT NULL)`;
    // "Not X" keeps the payments without the other row, or whose row is not X.
    return `${negated(condition) ? 'NOT ' : ''}EXISTS (SELECT 1 FROM ${from} WHERE ${link} AND ${positiveSql(value, column.type, condition, params)})`;
  }
  const { sql } = column;
  if (condition.kind === 'null') return `${sql} IS ${condition.negate ? 'NOT ' : ''}NULL`;
  const positive = positiveSql(sql, column.type, condition, params);
  return negated(condition) ? `(${sql} IS NULL OR NOT (${positive}))` : positive;
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

interface SortKey {
  column: Column;
  descending: boolean;
  nullable: boolean;
}

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

const orderBySql = (keys: SortKey[]) => keys.map((k) => `${k.column.sql}${k.descending ? ' DESC' : ''}`).join(', ');

/**
 * Another row's field as a subquery of its own (by its table's primary key), not run for a
 * payment that names no such row: most name no charity, profile or batch, and each subquery run
 * is an index scan started and ended (the benchmark's page ran in 0.43 ms with the guard, 0.58
 * without).
 */
const subquery = ({ lookup }: Column & { lookup: Lookup }) => {
  const read = `(SELECT ${lookup.value} FROM ${lookup.from} WHERE ${lookup.link})`;
  return lookup.via ? `CASE WHEN ${lookup.via} IS NOT NULL THEN ${read} END` : read;
};

/** Where the kept part of a count ends, and the last payment number checked for one written late before that. */
export interface CountCutoff {
  cutoff: string;
  checkedId: number;
}

/** The columns a page carries when its count is kept: recentCountStatement's values, as recentColumns names them. */
const RECENT_COLUMNS = ['_recent', '_lastId', '_late'] as const;

/**
 * One page of the report (OFFSET paging: PageIndex is the API's). Names of other rows are
 * subqueries here, read for the page's rows only: with them joined, planning the page took 2.2
 * ms against 0.4 (two relations rather than seven) for a page that runs in 0.8. A name the
 * page sorts by is joined, as in ROWS_FROM. With `recent` (the report's count is kept), every
 * row also carries the recent part of the count (RECENT_COLUMNS, worked out once: the
 * subqueries name nothing of the row), so a page costs one statement rather than two.
 */
export function pageStatement(scope: ReportScope, criteria: ReportCriteria, paging: ReportPaging, recent?: CountCutoff): Statement {
  const params = new Params();
  const where = whereSql(scope, criteria, params);
  const limit = params.bind(paging.pageSize, 'int');
  const offset = params.bind((paging.pageIndex - 1) * paging.pageSize, 'bigint');
  const keys = sortKeys(criteria.sort);
  const sorted = new Set(keys.map((k) => k.column));
  const select = KEYS.map((key) => {
    const column = COLUMNS[key];
    const value = column.lookup && !column.lateral && !sorted.has(column) ? subquery(column as Column & { lookup: Lookup }) : column.sql;
    return `${column.type === 'timestamptz' ? isoInstant(value) : value} AS "${key}"`;
  });
  const joins = KEYS.flatMap((key) => {
    const column = COLUMNS[key];
    return column.lookup && !column.lateral && sorted.has(column) ? [`LEFT JOIN ${column.lookup.from} ON ${column.lookup.link}`] : [];
  });
  if (recent) select.push(recentColumns(scope, criteria, recent, params));
  return {
    text: `SELECT ${select.join(',\n  ')}\n${['FROM payments p', ADJUSTMENT_JOIN, ...joins].join('\n')}\nWHERE ${where}\nORDER BY ${orderBySql(keys)}\nLIMIT ${limit} OFFSET ${offset}`,
    params: params.values,
  };
}

/** How many payments the report holds. */
export function countStatement(scope: ReportScope, criteria: ReportCriteria): Statement {
  const params = new Params();
  const where = whereSql(scope, criteria, params);
  return { text: `SELECT count(*)::bigint AS total\nFROM payments p\nWHERE ${where}`, params: params.values };
}

/**
 * Fields a payment is written with and never changes: a count of payments by them alone stays
 * true as long as no payment is added among them (ReportRepository's #count).
 */
const WRITTEN_ONCE: ReadonlySet<ReportFieldKey> = new Set(['paymentId', 'paymentGuid', 'paymentDate', 'integrationSourceGuid', 'organizationGuid']);

/** Whether the report's count can be kept: its filters read only fields written once. */
export const countKeepable = (criteria: ReportCriteria) => criteria.filters.every((f) => WRITTEN_ONCE.has(f.field.key));

/** How far before the database's time (a replica's: that of the last write it replayed) the kept part of a count ends. */
const SETTLED_AGE = "interval '10 minutes'";

/**
 * The payments of the report made before the cutoff (the database's time less SETTLED_AGE), the
 * cutoff, and the last payment number written then (in the same snapshot).
 */
export function settledCountStatement(scope: ReportScope, criteria: ReportCriteria): Statement {
  const params = new Params();
  const where = whereSql(scope, criteria, params);
  const cutoff = `date_trunc('second', least(now(), coalesce(pg_last_xact_replay_timestamp(), now())) - ${SETTLED_AGE})`;
  return {
    text: `SELECT k.cutoff::text AS cutoff, (SELECT max(payment_id) FROM payments) AS "lastId", (SELECT count(*) FROM payments p\nWHERE ${where}\n  AND p.created_at < k.cutoff)::bigint AS settled\nFROM (SELECT ${cutoff} AS cutoff) k`,
    params: params.values,
  };
}

/**
 * The payments of the report made from `cutoff` on; the last payment number now; and whether a
 * payment of the partner numbered after `checkedId` was made before `cutoff` (written late: the
 * kept count misses it).
 */
export function recentCountStatement(scope: ReportScope, criteria: ReportCriteria, kept: CountCutoff): Statement {
  const params = new Params();
  return { text: `SELECT ${recentColumns(scope, criteria, kept, params)}`, params: params.values };
}

/** recentCountStatement's values as select-list items, named RECENT_COLUMNS. */
function recentColumns(scope: ReportScope, criteria: ReportCriteria, { cutoff, checkedId }: CountCutoff, params: Params): string {
  const where = whereSql(scope, criteria, params);
  const at = params.bind(cutoff, 'timestamptz');
  const late = `EXISTS (SELECT 1 FROM payments x WHERE x.payment_id > ${params.bind(checkedId, 'bigint')} AND x.partner_id = ${params.bind(scope.partnerId, 'uuid')} AND x.created_at < ${at})`;
  const [recent, lastId, isLate] = RECENT_COLUMNS;
  return `(SELECT count(*) FROM payments p\nWHERE ${where}\n  AND p.created_at >= ${at})::bigint AS "${recent}", (SELECT max(payment_id) FROM payments) AS "${lastId}", ${late} AS "${isLate}"`;
}

/** Every payment of the report, in order, as typed rows (read through a cursor). */
export function exportStatement(scope: ReportScope, criteria: ReportCriteria): Statement {
  const params = new Params();
  const where = whereSql(scope, criteria, params);
  return { text: `SELECT ${SELECT_ROWS}\n${ROWS_FROM}\nWHERE ${where}\nORDER BY ${orderBySql(sortKeys(criteria.sort))}`, params: params.values };
}

/**
 * The CSV file as PostgreSQL writes it (a header of the field names), and the statement that sets
 * its values. The setup also turns JIT off for the transaction: the statement's cost is far above
 * jit_above_cost, and compiling its 54 cells' expressions took each process (the leader and every
 * parallel worker) 1.3-2 s before its first row, more than compiled code saved (1,000,000 rows:
 * 10.7 s with JIT, 9.6 s without).
 */
export function csvCopyStatement(scope: ReportScope, criteria: ReportCriteria): { setup: Statement; copy: string } {
  const params = new Params(true);
  const where = whereSql(scope, criteria, params);
  const query = `SELECT ${SELECT_CSV}\n${ROWS_FROM}\nWHERE ${where}\nORDER BY ${orderBySql(sortKeys(criteria.sort))}`;
  const setup = params.setup();
  return { setup: { text: `${setup.text}, set_config('jit', 'off', true)`, params: setup.params }, copy: `COPY (${query}) TO STDOUT WITH (FORMAT csv, HEADER true)` };
}

/** The sort keys of the last row of a keyset batch, as the database writes them (exact: no rounding of times). */
type KeysetPosition = (string | null)[];

/**
 * The next batch after `after` (none: the first): the export's order without a cursor. Each key
 * comes back as text (`_k0`...) to be bound again as it was read.
 */
export function keysetStatement(scope: ReportScope, criteria: ReportCriteria, after: KeysetPosition | undefined, rows: number, select: 'rows' | 'csv' = 'rows'): Statement {
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
    text: `SELECT ${select === 'rows' ? SELECT_ROWS : SELECT_CSV},\n  ${keyList}\n${ROWS_FROM}\nWHERE ${where}\nORDER BY ${orderBySql(keys)}\nLIMIT ${params.bind(rows, 'int')}`,
    params: params.values,
  };
}

/** A report's rows in batches, in order, whatever its size. */
export interface Batches<T> {
  /** The next batch; empty when the report is done. */
  next(): Promise<T[]>;
  /** Stops reading (the query too, if one runs); safe to call twice. */
  close(): Promise<void>;
}
export type RowBatches = Batches<ReportRow>;

/** The CSV file: PostgreSQL's own (COPY), or its cells in batches for csv-stringify (PGlite). */
export type CsvSource = { kind: 'copy'; stream: Readable } | { kind: 'cells'; first: (string | null)[][]; batches: Batches<(string | null)[]> };

/** How many rows an export reads per round trip. */
export const EXPORT_BATCH_ROWS = 1000;

type OpenCursor = <T>(text: string, params: unknown[]) => Promise<RowCursor<T>>;
type CopyOut = (setup: Statement, copyText: string) => Promise<Readable>;

/** How long a count of settled payments is used: a payment written late (SETTLED_AGE) counts after this at most. */
export const COUNT_KEPT_MS = 5 * 60_000;
/** Counts kept at once (the least recently used go). */
const COUNTS_KEPT = 1000;

interface KeptCount extends CountCutoff {
  /** The payments made before `cutoff` (the database's time, as it wrote it). */
  settled: number;
}

/** recentCountStatement's values (RECENT_COLUMNS). */
interface RecentCount {
  _recent: number;
  _lastId: number | null;
  _late: boolean;
}

/**
 * Which kept count a report's is: a digest of its settled count's text and values. Not the text
 * itself: a report's filters may hold 1,000 values (MAX_FILTER_VALUES), and a thousand kept
 * counts would hold their statements (with 10,000 values, 380 kB each).
 */
export const keptCountKey = (settled: Statement) => createHash('sha256').update(settled.text).update('\n').update(JSON.stringify(settled.params)).digest('base64url');

/** The recent count a page's rows carry (the first row's: every row has the same). */
const recentOf = (rows: Partial<RecentCount>[]): RecentCount => ({ _recent: rows[0]!._recent!, _lastId: rows[0]!._lastId ?? null, _late: rows[0]!._late! });

export class ReportRepository {
  readonly #sql: SqlClient;
  readonly #counts = new LRUCache<string, KeptCount>({ max: COUNTS_KEPT, ttl: COUNT_KEPT_MS });
  readonly #openCursor: OpenCursor | undefined;
  readonly #copyOut: CopyOut | undefined;

  /**
   * `openCursor` and `copyOut`: the store's server-side cursors and COPY, when it has them
   * (PostgreSQL); without them, exports read keyset batches.
   */
  constructor(deps: { sql: SqlClient; openCursor?: OpenCursor; copyOut?: CopyOut }) {
    this.#sql = deps.sql;
    this.#openCursor = deps.openCursor;
    this.#copyOut = deps.copyOut;
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

  /**
   * A page and the report's total. Where the count is kept, the page's rows also carry the recent
   * part of it (RECENT_COLUMNS): left on them, as the edge writes the row's fields by name only,
   * and deleting a property turns each row into a slower dictionary object.
   */
  async page(scope: ReportScope, criteria: ReportCriteria, paging: ReportPaging): Promise<{ rows: ReportRow[]; total: number }> {
    const key = countKeepable(criteria) ? keptCountKey(settledCountStatement(scope, criteria)) : undefined;
    const kept = key === undefined ? undefined : this.#counts.get(key);
    const page = pageStatement(scope, criteria, paging, kept);
    const rows = await this.#sql.query<ReportRow & Partial<RecentCount>>(page.text, page.params);
    const recent = kept && rows.length > 0 ? recentOf(rows) : undefined;
    const offset = (paging.pageIndex - 1) * paging.pageSize;
    // A short page that is not past the end says the total itself.
    if (rows.length < paging.pageSize && (rows.length > 0 || offset === 0)) return { rows, total: offset + rows.length };
    const total = kept && recent ? this.#keptTotal(key!, kept, recent) : undefined;
    return { rows, total: total ?? (await this.#count(scope, criteria)) };
  }

  /**
   * The kept count and its recent part, added; undefined when a payment was written late (before
   * the cutoff, after the last look): the kept count is dropped, to be counted again.
   */
  #keptTotal(key: string, kept: KeptCount, recent: RecentCount): number | undefined {
    if (recent._late) {
      this.#counts.delete(key);
      return undefined;
    }
    kept.checkedId = Math.max(kept.checkedId, recent._lastId ?? 0);
    return kept.settled + recent._recent;
  }

  /**
   * The report's count. By fields written once (countKeepable), the payments made before a cutoff
   * some minutes back are counted once and that count kept for COUNT_KEPT_MS, by the statement's
   * text and values; the payments since are counted each time (a few minutes' worth, on the same
   * index). Each time, the payments numbered since the last look are checked for one made before
   * the cutoff (a payment written late, or stamped by a clock behind the database's): one means
   * the kept count is counted again. Other filters, whose fields change, are counted each time.
   */
  async #count(scope: ReportScope, criteria: ReportCriteria): Promise<number> {
    if (!countKeepable(criteria)) {
      const count = countStatement(scope, criteria);
      const [row] = await this.#sql.query<{ total: number }>(count.text, count.params);
      return row?.total ?? 0;
    }
    const settled = settledCountStatement(scope, criteria);
    const key = keptCountKey(settled);
    for (let attempt = 0; ; attempt++) {
      let kept = this.#counts.get(key);
      if (!kept) {
        const [row] = await this.#sql.query<{ cutoff: string; lastId: number | null; settled: number }>(settled.text, settled.params);
        kept = { cutoff: row!.cutoff, settled: row!.settled, checkedId: row!.lastId ?? 0 };
        this.#counts.set(key, kept);
      }
      const recent = recentCountStatement(scope, criteria, kept);
      const [row] = await this.#sql.query<RecentCount>(recent.text, recent.params);
      const total = this.#keptTotal(key, kept, row!);
      if (total !== undefined) return total;
      // Written late twice running: counted whole.
      if (attempt === 1) {
        const count = countStatement(scope, criteria);
        const [whole] = await this.#sql.query<{ total: number }>(count.text, count.params);
        return whole?.total ?? 0;
      }
    }
  }

  /** The typed rows of an export (Excel): a server-side cursor where the store has them, keyset batches elsewhere. */
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
    return this.#keyset(scope, criteria, batchRows, 'rows', (row) => row as unknown as ReportRow);
  }

  /** The CSV export: PostgreSQL writes the whole file (COPY); PGlite gives its cells in keyset batches. */
  async csv(scope: ReportScope, criteria: ReportCriteria, batchRows = EXPORT_BATCH_ROWS): Promise<CsvSource> {
    if (this.#copyOut) {
      const { setup, copy } = csvCopyStatement(scope, criteria);
      return { kind: 'copy', stream: await this.#copyOut(setup, copy) };
    }
    const names = REPORT_FIELDS.map((f) => f.name);
    const batches = this.#keyset(scope, criteria, batchRows, 'csv', (row) => names.map((n) => (row[n] as string | null) ?? null));
    // The first batch now, as COPY's first bytes: a failing database fails the request, not the file.
    return { kind: 'cells', first: await batches.next(), batches };
  }

  #keyset<T>(scope: ReportScope, criteria: ReportCriteria, batchRows: number, select: 'rows' | 'csv', shape: (row: Record<string, unknown>) => T): Batches<T> {
    const keyCount = sortKeys(criteria.sort).length;
    let after: KeysetPosition | undefined;
    let done = false;
    return {
      next: async () => {
        if (done) return [];
        const statement = keysetStatement(scope, criteria, after, batchRows, select);
        const rows = await this.#sql.query<Record<string, unknown>>(statement.text, statement.params);
        if (rows.length < batchRows) done = true;
        const last = rows.at(-1);
        if (last) after = Array.from({ length: keyCount }, (_, i) => (last[`_k${i}`] as string | null) ?? null);
        return rows.map((row) => {
          for (let i = 0; i < keyCount; i++) delete row[`_k${i}`];
          return shape(row);
        });
      },
      close: async () => {
        done = true;
      },
    };
  }
}
