import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { type Static, type TSchema, Type } from 'typebox';
import { centsToWire } from '../../domain/money.ts';
import type { Services } from '../../composition.ts';
import { MAX_FILTER_VALUES, MAX_FILTER_VALUE_LENGTH, MAX_PAGE_SIZE, MAX_SORT_COLUMNS, DEFAULT_PAGE_SIZE, OPERATIONS_BY_TYPE, Operation } from '../../modules/reports/report-criteria.ts';
import { EXPORT_CONTENT_TYPES } from '../../modules/reports/report-export.ts';
import { REPORT_FIELDS, type ReportField, shownValue } from '../../modules/reports/report-fields.ts';
import type { ReportFile, ReportPage, ReportRow, ReportScopeInput } from '../../modules/reports/report-service.ts';
import { Guid, JSON_CONSUMES, notFound } from './wire.ts';

/**
 * The original's four report operations: POST /api/sourceTransactionsReport and
 * /api/organizationTransactionsReport (a page as JSON), and their export forms (the whole report
 * as a CSV or Excel file, streamed). docs/decisions.md, "Transaction reports".
 */

const OPERATIONS_TEXT = Object.entries(Operation)
  .map(([name, value]) => `${value} ${name}`)
  .join(', ');

const TYPE_TEXT: Record<ReportField['type'], string> = {
  integer: 'a whole number',
  amount: 'an amount (compared exactly, in cents)',
  datetime: 'an instant (UTC), filtered by whole days: values yyyy-MM-dd',
  date: 'a day: values yyyy-MM-dd',
  text: 'text (Equals and In exact; Contains, StartsWith and EndsWith ignore letter case)',
  guid: 'a GUID',
  enum: 'a closed set, values by number or name',
};

const FIELDS_TEXT = REPORT_FIELDS.map((f) => f.name).join(', ');

const ReportFilter = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 100, description: `A field of the report row (any letter case): ${FIELDS_TEXT}.` }),
    Operation: Type.Integer({
      format: 'int32',
      enum: Object.values(Operation),
      description: `${OPERATIONS_TEXT}. Which a field takes depends on its type (the row's field descriptions). Dates are whole days of UTC: 7 After 2026-01-01 is from 2026-01-02 00:00 UTC on; Equals, Between and the others alike. NotEquals and NotIn keep payments without a value.`,
    }),
    Values: Type.Optional(
      Type.Array(Type.String({ maxLength: MAX_FILTER_VALUE_LENGTH }), {
        maxItems: 100,
        description: 'The values compared with: one for most operations, two for Between (lower first), one to 100 for In and NotIn, none for IsNull and IsNotNull.',
      }),
    ),
  },
  { title: 'ReportFilter', examples: [{ Name: 'PaymentDate', Operation: 7, Values: ['2026-01-01'] }] },
);

const SortColumn = Type.Object(
  {
    Name: Type.String({ minLength: 1, maxLength: 100, description: 'A field of the report row.' }),
    Descending: Type.Optional(Type.Boolean({ description: 'Default false (ascending). Payments without a value come last ascending, first descending.' })),
    Order: Type.Optional(Type.Integer({ format: 'int32', description: 'Which column sorts first (lowest first); required when there are several.' })),
  },
  { title: 'SortColumn' },
);

const common = {
  Filters: Type.Array(ReportFilter, { maxItems: 100, description: `Required; may be empty. A payment is in the report when it passes every filter. At most ${MAX_FILTER_VALUES} values in all.` }),
  SortColumns: Type.Optional(
    Type.Array(SortColumn, { maxItems: MAX_SORT_COLUMNS, description: 'Default PaymentDate descending. PaymentId, in the direction of the first column, breaks ties.' }),
  ),
};

const TransactionReportRequest = Type.Object(
  {
    ...common,
    PageSize: Type.Optional(Type.Integer({ format: 'int32', minimum: 1, maximum: MAX_PAGE_SIZE, description: `Rows per page, 1-${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}.` })),
    PageIndex: Type.Optional(Type.Integer({ format: 'int32', minimum: 0, description: 'The page, from 1 (0 is the first page too). A page past the end is empty.' })),
  },
  { title: 'TransactionReportRequest' },
);

const ExportTransactionReportRequest = Type.Object(
  {
    ...common,
    Format: Type.Optional(Type.String({ maxLength: 10, description: 'csv (the default) or excel, in any letter case. Exports are not paged: every payment of the report.', examples: ['csv', 'excel'] })),
  },
  { title: 'ExportTransactionReportRequest' },
);

function fieldSchema(field: ReportField): TSchema {
  const operations = OPERATIONS_BY_TYPE[field.type].map((o) => Operation[o]).join(', ');
  const description = `${field.description} ${TYPE_TEXT[field.type]}; operations ${operations}.${field.indexed ? ' Indexed.' : ''}`;
  let schema: TSchema;
  if (field.type === 'enum' && field.showsName) schema = Type.String({ description });
  else if (field.type === 'enum' || field.type === 'integer') schema = Type.Integer({ format: 'int32', description });
  else if (field.type === 'amount') schema = Type.Number({ description });
  else if (field.type === 'datetime') schema = Type.String({ format: 'date-time', description });
  else if (field.type === 'date') schema = Type.String({ format: 'date', description });
  else if (field.type === 'guid') schema = Type.String({ format: 'uuid', description });
  else schema = Type.String({ description });
  // A type list rather than anyOf: the serializer checks a list by typeof, and tried each branch
  // of anyOf with a validator (1.4 ms against 0.4 ms for a page of 100 rows).
  return field.nullable ? Type.Unsafe({ ...schema, type: [(schema as { type: string }).type, 'null'] }) : schema;
}

const TransactionReportRow = Type.Object(Object.fromEntries(REPORT_FIELDS.map((f) => [f.name, fieldSchema(f)])), {
  $id: 'TransactionReportRow',
  title: 'TransactionReportRow',
  description: 'One payment. Amounts are decimal numbers of the payment currency; times are UTC.',
});

const TransactionReportDetails = Type.Object(
  {
    Transactions: Type.Array(Type.Ref('TransactionReportRow')),
    TotalCount: Type.Integer({ description: 'Payments in the report, on every page.' }),
    PageIndex: Type.Integer({ format: 'int32', description: 'This page, from 1.' }),
    PageSize: Type.Integer({ format: 'int32' }),
    TotalPages: Type.Integer({ description: 'Pages of PageSize rows.' }),
  },
  { $id: 'TransactionReportDetails', title: 'TransactionReportDetails' },
);

const SourceQuery = Type.Object({
  IntegrationSource: Type.Optional(
    Type.Array(Guid(), { maxItems: 100, description: "One of the partner's integration sources (repeat the parameter for several). Default: every payment of the partner." }),
  ),
});

const OrganizationQuery = Type.Object({
  OrganizationGuid: Guid({ description: "One of the partner's organizations." }),
});

/**
 * A row on the wire: every field by its name, in the schema's order. Amounts as decimal numbers,
 * the rest as the row has them (names where a field shows them). A missing value of a field that
 * is never null is `""` or `0`, as the response schema's serializer (fast-json-stringify) wrote it.
 * Compiled from the catalogue into one object literal: a function per field cost 3.7 µs a row.
 */
export const reportRowToWire = compileRowToWire();

function compileRowToWire(): (row: ReportRow) => Record<string, unknown> {
  const names: ((row: ReportRow) => unknown)[] = [];
  const properties = REPORT_FIELDS.map((field) => {
    const numeric = field.type === 'amount' || field.type === 'integer' || (field.type === 'enum' && !field.showsName);
    const missing = field.nullable ? 'null' : numeric ? '0' : "''";
    const value = `row[${JSON.stringify(field.key)}]`;
    let shown = value;
    if (field.type === 'amount') shown = `centsToWire(${value})`;
    else if (field.showsName) {
      names.push((row) => shownValue(field, row));
      shown = `names[${names.length - 1}](row)`;
    }
    return `${JSON.stringify(field.name)}: ${value} === null ? ${missing} : ${shown}`;
  });
  // The text is built from the fixed catalogue only.
  return new Function('centsToWire', 'names', `return (row) => ({\n${properties.join(',\n')}\n});`)(centsToWire, names) as (row: ReportRow) => Record<string, unknown>;
}

/**
 * A page as the JSON of TransactionReportDetails, by JSON.stringify: the bytes the response
 * schema's serializer wrote (the same properties in the same order; numbers, strings and nulls
 * alike), in a third of its time.
 */
export function reportPageJson(page: ReportPage): string {
  return JSON.stringify({
    Transactions: page.rows.map(reportRowToWire),
    TotalCount: page.totalCount,
    PageIndex: page.pageIndex,
    PageSize: page.pageSize,
    TotalPages: page.totalPages,
  });
}

type ReportBody = Static<typeof TransactionReportRequest>;
type ExportBody = Static<typeof ExportTransactionReportRequest>;

const readCommon = (body: ReportBody | ExportBody) => ({
  filters: body.Filters.map((f) => ({ name: f.Name, operation: f.Operation, values: f.Values })),
  sortColumns: body.SortColumns?.map((s) => ({ name: s.Name, descending: s.Descending, order: s.Order })),
});

/** A page's JSON, written here (a string is sent as it is: the response schema documents it). */
const sendPage = (reply: FastifyReply, page: ReportPage) => reply.type('application/json; charset=utf-8').send(reportPageJson(page));

/** A client that stops reading an export for this long is cut off (its query with it). */
const EXPORT_STALL_MS = 60_000;

async function sendFile(request: FastifyRequest, reply: FastifyReply, file: ReportFile) {
  reply.raw.setTimeout(EXPORT_STALL_MS, () => {
    request.log.info('export cut off: the client read nothing for 60 s');
    reply.raw.destroy();
  });
  return reply.code(200).type(file.contentType).header('Content-Disposition', `attachment; filename="${file.fileName}"`).send(file.stream);
}

const exportResponse = {
  200: {
    description: 'The file, streamed: CSV (RFC 4180, UTF-8, a header row of the field names) or Excel (.xlsx). Cells that begin with =, +, -, @, a tab or a carriage return start with an apostrophe.',
    headers: { 'Content-Disposition': { type: 'string', description: 'attachment; filename="transactions-....csv" (or .xlsx)' } },
    content: {
      [EXPORT_CONTENT_TYPES.csv.split(';')[0]!]: { schema: { type: 'string' } },
      [EXPORT_CONTENT_TYPES.excel]: { schema: { type: 'string', format: 'binary' } },
    },
  },
};

const notFoundScope = { 404: { ...notFound[404], description: "The integration source or organization is not one of the partner's (or does not exist)." } };

export function reportRoutes(app: FastifyInstance, services: Services) {
  if (!app.getSchema('TransactionReportRow')) app.addSchema(TransactionReportRow);
  if (!app.getSchema('TransactionReportDetails')) app.addSchema(TransactionReportDetails);
  const tags = ['Reports'];
  const pageResponse = { 200: { ...Type.Ref('TransactionReportDetails'), description: 'One page of the report, with the total count.' }, ...notFoundScope };

  const sourceScope = (query: Static<typeof SourceQuery>): ReportScopeInput => ({ kind: 'sources', integrationSourceIds: query.IntegrationSource });
  const organizationScope = (query: Static<typeof OrganizationQuery>): ReportScopeInput => ({ kind: 'organization', organizationId: query.OrganizationGuid });

  app.post<{ Body: ReportBody; Querystring: Static<typeof SourceQuery> }>(
    '/sourceTransactionsReport',
    {
      schema: {
        tags,
        operationId: 'sourceTransactionsReport',
        summary: "The transaction history of the partner's integration sources, a page at a time.",
        consumes: JSON_CONSUMES,
        querystring: SourceQuery,
        body: TransactionReportRequest,
        response: pageResponse,
      },
    },
    async (request, reply) => {
      const page = await services.reports.page(request.partner, sourceScope(request.query), { ...readCommon(request.body), pageIndex: request.body.PageIndex, pageSize: request.body.PageSize });
      return sendPage(reply, page);
    },
  );

  app.post<{ Body: ReportBody; Querystring: Static<typeof OrganizationQuery> }>(
    '/organizationTransactionsReport',
    {
      schema: {
        tags,
        operationId: 'organizationTransactionsReport',
        summary: 'The transaction history of one of the partner’s organizations (a non-profit), a page at a time.',
        consumes: JSON_CONSUMES,
        querystring: OrganizationQuery,
        body: TransactionReportRequest,
        response: pageResponse,
      },
    },
    async (request, reply) => {
      const page = await services.reports.page(request.partner, organizationScope(request.query), { ...readCommon(request.body), pageIndex: request.body.PageIndex, pageSize: request.body.PageSize });
      return sendPage(reply, page);
    },
  );

  app.post<{ Body: ExportBody; Querystring: Static<typeof SourceQuery> }>(
    '/exportSourceTransactionsReport',
    {
      schema: {
        tags,
        operationId: 'exportSourceTransactionsReport',
        summary: "Every payment of the partner's integration sources, as a CSV or Excel file.",
        consumes: JSON_CONSUMES,
        querystring: SourceQuery,
        body: ExportTransactionReportRequest,
        response: { ...exportResponse, ...notFoundScope },
      },
    },
    async (request, reply) => {
      const file = await services.reports.export(request.partner, sourceScope(request.query), { ...readCommon(request.body), format: request.body.Format });
      return sendFile(request, reply, file);
    },
  );

  app.post<{ Body: ExportBody; Querystring: Static<typeof OrganizationQuery> }>(
    '/exportOrganizationTransactionsReport',
    {
      schema: {
        tags,
        operationId: 'exportOrganizationTransactionsReport',
        summary: 'Every payment of one of the partner’s organizations, as a CSV or Excel file.',
        consumes: JSON_CONSUMES,
        querystring: OrganizationQuery,
        body: ExportTransactionReportRequest,
        response: { ...exportResponse, ...notFoundScope },
      },
    },
    async (request, reply) => {
      const file = await services.reports.export(request.partner, organizationScope(request.query), { ...readCommon(request.body), format: request.body.Format });
      return sendFile(request, reply, file);
    },
  );
}
