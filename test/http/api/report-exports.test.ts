import { request as httpRequest, type IncomingMessage } from 'node:http';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestContext, type TestPartner, createTestContext, seedTestPartner } from '../../helpers/context.ts';
import { expectDocumented } from '../../helpers/openapi.ts';
import { insertSyntheticPayments } from '../../helpers/report-data.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { withUnreachableSql } from '../../helpers/unreachable-database.ts';
import { REPORT_FIELDS } from '../../../src/modules/reports/report-fields.ts';
import { ReportRepository } from '../../../src/modules/reports/report-repository.ts';
import { INJECTIONS, type ReportFixture, seedReportPayments } from './report-fixtures.ts';

/**
 * POST /api/exportSourceTransactionsReport and /api/exportOrganizationTransactionsReport: the
 * files read back with real parsers (csv-parse; exceljs, which wrote the workbook), CSV injection
 * cells, and the stream at volume: backpressure, a client that goes away, the limit on exports
 * running at once.
 */

let ctx: TestContext;
let fx: ReportFixture;
let volume: TestPartner;
/**
 * On PostgreSQL COPY writes the file as fast as the buffers between it and the client take it:
 * the socket buffers of both hops grow to several MB each (tcp_rmem allows 32 MB here), so a
 * file of 25,000 rows (11 MB) can fit in them whole under a full test run, and the paused client
 * would see COPY finished. 100,000 rows (45 MB) do not fit.
 */
const VOLUME_ROWS = testDatabaseUrl() ? 100_000 : 25_000;

/** Batches the report repository has read since the test began (a spy around its batches). */
let batchesRead = 0;

beforeAll(async () => {
  ctx = await createTestContext({ config: { reportExportConcurrency: 1 } });
  fx = await seedReportPayments(ctx);
  volume = await seedTestPartner(ctx.services, 'Volume Partner', 'non-profit');
  await insertSyntheticPayments(ctx.store.sql, {
    partnerId: volume.ClientId,
    processorId: volume.processorId,
    integrationSourceIds: [volume.integrationSourceId],
    organizationIds: [volume.organizationId ?? null],
    count: VOLUME_ROWS,
    from: new Date('2025-01-01T00:00:00Z'),
    to: new Date('2026-01-01T00:00:00Z'),
    prefix: 'vol',
  });
  const batches = ReportRepository.prototype.batches;
  vi.spyOn(ReportRepository.prototype, 'batches').mockImplementation(async function (this: ReportRepository, ...args: Parameters<typeof batches>) {
    const inner = await batches.apply(this, args);
    return {
      next: async () => {
        batchesRead += 1;
        return inner.next();
      },
      close: () => inner.close(),
    };
  });
  await ctx.app.listen({ port: 0, host: '127.0.0.1' });
}, 300_000);
afterAll(async () => {
  vi.restoreAllMocks();
  await ctx.close();
});

const SOURCE_EXPORT = '/api/exportSourceTransactionsReport';
const ORG_EXPORT = '/api/exportOrganizationTransactionsReport';

function exportReport(body: unknown, options: { query?: string; partner?: TestPartner; path?: string } = {}) {
  const path = options.path ?? SOURCE_EXPORT;
  return ctx.as(options.partner ?? ctx.nonProfit, { method: 'POST', url: `${path}${options.query ? `?${options.query}` : ''}`, payload: body as object });
}

type Row = Record<string, unknown>;
async function jsonRows(body: unknown, query?: string): Promise<Row[]> {
  const res = await ctx.as(ctx.nonProfit, { method: 'POST', url: `/api/sourceTransactionsReport${query ? `?${query}` : ''}`, payload: { ...(body as object), PageSize: 1000 } });
  expect(res.statusCode).toBe(200);
  return res.json<{ Transactions: Row[] }>().Transactions;
}

/** What a JSON field's value is as CSV text. */
function asCsv(name: string, value: unknown): string {
  const field = REPORT_FIELDS.find((f) => f.name === name)!;
  if (value === null) return '';
  if (field.type === 'amount') return (value as number).toFixed(2);
  const text = String(value);
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

const HEADER = REPORT_FIELDS.map((f) => f.name);

describe('CSV', () => {
  it('is every payment of the report as RFC 4180 CSV, cell for cell the JSON report', async () => {
    const res = await exportReport({ Filters: [] });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8');
    expect(res.headers['content-disposition']).toBe('attachment; filename="transactions-sources-20260301-120000.csv"');
    expect(res.headers['cache-control']).toBe('no-store');
    const records: string[][] = parse(res.body, { relaxQuotes: false, relaxColumnCount: false });
    expect(records[0]).toEqual(HEADER);
    const json = await jsonRows({ Filters: [] });
    expect(records.slice(1).map((r) => Object.fromEntries(HEADER.map((h, i) => [h, r[i]])))).toEqual(json.map((row) => Object.fromEntries(HEADER.map((h) => [h, asCsv(h, row[h])]))));
    // Records end with CRLF; a line break inside a value stays inside its quoted field.
    expect(res.body.endsWith('\r\n')).toBe(true);
    expect(records.find((r) => r[0] === String(fx.paid.c.PaymentId))![HEADER.indexOf('LastName')]).toBe('O"Brien, Jr.\r\nIII');
    expect(res.body).toContain('"O""Brien, Jr.\r\nIII"');
  });

  it('neutralises cells a spreadsheet would run as formulas', async () => {
    const res = await exportReport({ Filters: [{ Name: 'PaymentId', Operation: 12, Values: [String(fx.paid.b.PaymentId), String(fx.paid.c.PaymentId), String(fx.paid.d.PaymentId)] }] });
    const records: string[][] = parse(res.body);
    const cell = (paymentId: number, name: string) => records.find((r) => r[0] === String(paymentId))![HEADER.indexOf(name)];
    expect(cell(fx.paid.b.PaymentId, 'FirstName')).toBe(`'${INJECTIONS.formula}`);
    expect(cell(fx.paid.b.PaymentId, 'LastName')).toBe(`'${INJECTIONS.plus}`);
    expect(cell(fx.paid.b.PaymentId, 'ExternalConstituentId')).toBe(`'${INJECTIONS.at}`);
    expect(cell(fx.paid.b.PaymentId, 'TranId')).toBe(`'${INJECTIONS.minus}`);
    expect(cell(fx.paid.c.PaymentId, 'FirstName')).toBe(`'${INJECTIONS.tab}`);
    expect(cell(fx.paid.d.PaymentId, 'FirstName')).toBe(`'${INJECTIONS.carriageReturn}`);
    // No cell of the file begins with a formula character.
    for (const record of records) for (const value of record) expect(value).not.toMatch(/^[=+\-@\t\r]/);
  });

  it('applies the filters and the sort, and takes no paging', async () => {
    const res = await exportReport({ Filters: [{ Name: 'PaymentMethod', Operation: 0, Values: ['Card'] }], SortColumns: [{ Name: 'TotalAmount', Descending: true }], PageSize: 1, PageIndex: 3 });
    const records: string[][] = parse(res.body);
    expect(records.slice(1).map((r) => r[0])).toEqual([fx.paid.b, fx.paid.a, fx.paid.d, fx.paid.g, fx.paid.f, fx.paid.e].map((p) => String(p.PaymentId)));
  });

  it('of an empty report is its header', async () => {
    const res = await exportReport({ Filters: [{ Name: 'PaymentDate', Operation: 8, Values: ['2000-01-01'] }] });
    expect(res.statusCode).toBe(200);
    expect(parse(res.body)).toEqual([HEADER]);
  });

  it("of one organization, and none of another partner's", async () => {
    const res = await exportReport({ Filters: [] }, { path: ORG_EXPORT, query: `organizationGuid=${fx.organizations.second}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-disposition']).toBe(`attachment; filename="transactions-organization-${fx.organizations.second}-20260301-120000.csv"`);
    expect(parse(res.body).slice(1).map((r: string[]) => r[0])).toEqual([String(fx.paid.c.PaymentId)]);
    const otherOrg = await ctx.services.partners.createOrganization(ctx.forProfit.ClientId, { name: 'Not yours' });
    for (const id of [otherOrg, crypto.randomUUID()]) {
      const refused = await exportReport({ Filters: [] }, { path: ORG_EXPORT, query: `organizationGuid=${id}` });
      expect(refused.statusCode).toBe(404);
      expect(refused.json()).toMatchObject({ status: 404, detail: 'No data found.' });
      await expectDocumented(ctx.app, 'POST', ORG_EXPORT, refused);
    }
  });

  it("never holds another partner's payments", async () => {
    const res = await exportReport({ Filters: [] });
    for (const other of fx.others) expect(res.body).not.toContain(other.PaymentGuid);
    const theirs = await exportReport({ Filters: [] }, { partner: ctx.forProfit });
    expect(parse(theirs.body).slice(1).map((r: string[]) => r[1]).sort()).toEqual(fx.others.map((p) => p.PaymentGuid).sort());
  });
});

describe('Excel', () => {
  async function workbookOf(body: unknown, query?: string): Promise<ExcelJS.Worksheet> {
    const res = await exportReport(body, { query });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
    expect(res.headers['content-disposition']).toMatch(/^attachment; filename="transactions-sources-20260301-120000\.xlsx"$/);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    expect(workbook.worksheets.map((w) => w.name)).toEqual(['Transactions']);
    return workbook.worksheets[0]!;
  }

  it('is every payment as a typed workbook, read back with exceljs', async () => {
    const sheet = await workbookOf({ Filters: [], Format: 'EXCEL' });
    const values = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
    expect(values(1)).toEqual(HEADER);
    expect(sheet.actualRowCount).toBe(8);
    const json = await jsonRows({ Filters: [] });
    for (const [i, row] of json.entries()) {
      const cells = values(i + 2);
      for (const [j, name] of HEADER.entries()) {
        const field = REPORT_FIELDS[j]!;
        const expected = row[name];
        const cell = cells[j] ?? null;
        if (expected === null) expect(cell, name).toBeNull();
        else if (field.type === 'datetime') expect((cell as Date).toISOString(), name).toBe(expected);
        else if (field.type === 'amount' || typeof expected === 'number') expect(cell, name).toBe(expected);
        // XML (the workbook's text) keeps a line break as LF.
        else expect(cell, name).toBe(asCsv(name, expected).replace(/\r\n?/g, '\n'));
      }
    }
    expect(sheet.getColumn(HEADER.indexOf('TotalAmount') + 1).numFmt).toBe('0.00');
  });

  it('neutralises formula cells as the CSV does', async () => {
    const sheet = await workbookOf({ Filters: [{ Name: 'PaymentGuid', Operation: 0, Values: [fx.paid.b.PaymentGuid] }], Format: 'excel' });
    const cell = (name: string) => sheet.getRow(2).getCell(HEADER.indexOf(name) + 1);
    expect(cell('FirstName').value).toBe(`'${INJECTIONS.formula}`);
    expect(cell('FirstName').type).toBe(ExcelJS.ValueType.String);
    expect(cell('LastName').value).toBe(`'${INJECTIONS.plus}`);
    expect(cell('ExternalConstituentId').value).toBe(`'${INJECTIONS.at}`);
    expect(cell('TranId').value).toBe(`'${INJECTIONS.minus}`);
    sheet.eachRow((row) => row.eachCell((c) => expect(c.type).not.toBe(ExcelJS.ValueType.Formula)));
  });

  it('of an empty report is its header', async () => {
    const sheet = await workbookOf({ Filters: [{ Name: 'PaymentDate', Operation: 8, Values: ['2000-01-01'] }], Format: 'excel' });
    expect(sheet.actualRowCount).toBe(1);
  });
});

describe('bad export requests', () => {
  it('refuses a format other than csv or excel (400, 1006)', async () => {
    const res = await exportReport({ Filters: [], Format: 'pdf' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 1006, Message: "'Format' must be csv or excel." })]);
    await expectDocumented(ctx.app, 'POST', SOURCE_EXPORT, res);
  });

  it('refuses bad filters as the JSON report does', async () => {
    const res = await exportReport({ Filters: [{ Name: 'PaymentDate', Operation: 2, Values: ['2026'] }] });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toEqual([expect.objectContaining({ ErrorCode: 8001 })]);
  });

  // PostgreSQL's exports read through connections of their own: report-replica.test.ts refuses those.
  it.runIf(!testDatabaseUrl()).each(['csv', 'excel'])('with the database unreachable, a %s export is 503, not a file', async (Format) => {
    await withUnreachableSql(ctx.store, async () => {
      const res = await exportReport({ Filters: [], Format });
      expect(res.statusCode).toBe(503);
      expect(res.headers['content-disposition']).toBeUndefined();
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    });
  });

  it("answers another partner's source with 404", async () => {
    const res = await exportReport({ Filters: [] }, { query: `IntegrationSource=${ctx.forProfit.integrationSourceId}` });
    expect(res.statusCode).toBe(404);
    await expectDocumented(ctx.app, 'POST', SOURCE_EXPORT, res);
  });
});

/** A streamed export over a real socket, read as the test says. */
async function openExport(format: 'csv' | 'excel', partner: TestPartner = volume): Promise<{ response: IncomingMessage; firstChunk: Buffer; abort(): void }> {
  const token = await ctx.token(partner);
  const { port } = ctx.app.server.address() as { port: number };
  const body = JSON.stringify({ Filters: [], Format: format });
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method: 'POST', path: SOURCE_EXPORT, headers: { AccessToken: token, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      response.once('data', (chunk: Buffer) => {
        response.pause();
        resolve({ response, firstChunk: chunk, abort: () => req.destroy() });
      });
      response.once('error', () => {});
    });
    req.on('error', (err) => (err.message.includes('socket hang up') || (err as NodeJS.ErrnoException).code === 'ECONNRESET' ? undefined : reject(err)));
    req.end(body);
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits until `read()` stops changing for `quietMs`. */
async function settled(read: () => number, quietMs = 600): Promise<number> {
  let last = read();
  for (;;) {
    await sleep(quietMs);
    const now = read();
    if (now === last) return now;
    last = now;
  }
}

async function drain(response: IncomingMessage, firstChunk: Buffer): Promise<Buffer> {
  const chunks: Buffer[] = [firstChunk];
  response.resume();
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

const ALL_BATCHES = Math.ceil(VOLUME_ROWS / 1000);
/**
 * A streaming test's time: the whole export at volume, read by a paused client. They assert
 * behaviour, not speed, and on a slow two-core machine running other test files beside them an
 * export of 25,000 rows from PGlite took over two minutes.
 */
const STREAMING_MS = 360_000;

describe('streaming at volume', () => {
  /** The export's COPY on PostgreSQL, with what it waits for. */
  const copyBackend = async () =>
    (
      await ctx.store.sql.query<{ state: string; wait_event: string | null }>(
        "SELECT state, wait_event FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND query LIKE 'COPY (SELECT%'",
      )
    )[0];

  it('csv: reads rows only as fast as the client takes them (backpressure), then all of them', async () => {
    batchesRead = 0;
    const { response, firstChunk } = await openExport('csv');
    if (ctx.store.kind === 'postgres') {
      // PostgreSQL writes the file (COPY): with the client not reading, it waits to write.
      await vi.waitFor(async () => expect(await copyBackend()).toMatchObject({ state: 'active', wait_event: 'ClientWrite' }), { timeout: 30_000, interval: 200 });
      await sleep(1_000);
      expect(await copyBackend()).toMatchObject({ state: 'active', wait_event: 'ClientWrite' });
    } else {
      // The client reads nothing more: the server stops reading batches once the buffers between
      // them are full, far from the end.
      const whilePaused = await settled(() => batchesRead, 2_000);
      expect(whilePaused).toBeLessThan(ALL_BATCHES * 0.75);
    }
    const file = await drain(response, firstChunk);
    expect(parse(file)).toHaveLength(VOLUME_ROWS + 1);
    if (ctx.store.kind === 'postgres') await vi.waitFor(async () => expect(await copyBackend()).toBeUndefined());
  }, STREAMING_MS);

  it('excel: a client that pauses, then reads on, gets every row', async () => {
    const { response, firstChunk } = await openExport('excel');
    await sleep(1_000);
    const file = await drain(response, firstChunk);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(file as unknown as ArrayBuffer);
    expect(workbook.worksheets[0]!.actualRowCount).toBe(VOLUME_ROWS + 1);
  }, STREAMING_MS);

  it.each(['csv', 'excel'] as const)('%s: a client that disconnects mid-export stops the query', async (format) => {
    batchesRead = 0;
    const logsBefore = ctx.logs.length;
    const { abort } = await openExport(format);
    abort();
    if (format === 'excel' || ctx.store.kind === 'pglite') expect(await settled(() => batchesRead, 2_000)).toBeLessThan(ALL_BATCHES * 0.75);
    // The export ended incomplete, and its slot (REPORT_EXPORT_CONCURRENCY is 1 here) is free.
    const closed = () => ctx.logs.slice(logsBefore).filter((l) => l.includes('report export closed') && l.includes(`"format":"${format}"`));
    await vi.waitFor(() => expect(closed()).toEqual([expect.stringContaining('"complete":false')]), { timeout: 30_000 });
    if (ctx.store.kind === 'postgres') {
      // Its statement (COPY, or the cursor's) is gone from the server.
      const running = async () =>
        (
          await ctx.store.sql.query<{ n: number }>(
            "SELECT count(*)::int AS n FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database() AND state <> 'idle' AND query LIKE '%FROM payments p%'",
          )
        )[0]!.n;
      await vi.waitFor(async () => expect(await running()).toBe(0), { timeout: 30_000 });
    }
    const next = await exportReport({ Filters: [{ Name: 'PaymentId', Operation: 0, Values: [String(fx.paid.a.PaymentId)] }] });
    expect(next.statusCode).toBe(200);
  }, STREAMING_MS);

  it('runs at most REPORT_EXPORT_CONCURRENCY exports at once: the next is 503 with Retry-After', async () => {
    const first = await openExport('csv');
    const busy = await exportReport({ Filters: [] });
    expect(busy.statusCode).toBe(503);
    expect(busy.headers['retry-after']).toBe('5');
    expect(busy.json()).toMatchObject({ status: 503, detail: '1 exports are running, as many as run at once; try again shortly.' });
    await expectDocumented(ctx.app, 'POST', SOURCE_EXPORT, busy);
    first.abort();
    await vi.waitFor(async () => expect((await exportReport({ Filters: [] })).statusCode).toBe(200), { timeout: 30_000 });
  }, STREAMING_MS);
});
