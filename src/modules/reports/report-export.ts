import { once } from 'node:events';
import { PassThrough, Readable, Transform, type Writable, pipeline } from 'node:stream';
import { stringify } from 'csv-stringify/sync';
import ExcelJS from 'exceljs';
import { REPORT_FIELDS } from './report-fields.ts';
import { HEADER, excelFormat, excelRow } from './report-cells.ts';
import type { Batches, CsvSource, RowBatches } from './report-repository.ts';
import type { ReportRow } from './report-fields.ts';

/**
 * The export files, written as their rows are read: a batch of rows is read from the database
 * only when the client has taken the bytes of the one before (backpressure), so memory holds a
 * batch or so whatever the export's size. Destroying the stream (the client went away) stops
 * the query.
 */

export type ExportFormat = 'csv' | 'excel';

export const EXPORT_CONTENT_TYPES: Readonly<Record<ExportFormat, string>> = {
  csv: 'text/csv; charset=utf-8',
  excel: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
};

export const EXPORT_EXTENSIONS: Readonly<Record<ExportFormat, string>> = { csv: 'csv', excel: 'xlsx' };

/** Excel's rows per sheet (1,048,576) less the header: an export with more continues on another sheet. */
export const EXCEL_ROWS_PER_SHEET = 1_048_575;

/**
 * RFC 4180, as PostgreSQL's COPY writes it: CRLF after every record, a field quoted when it
 * holds a comma, a quote or a line break, and an empty text quoted ("") where a missing value is
 * nothing at all.
 */
const CSV_OPTIONS = {
  record_delimiter: '\r\n',
  cast: { string: (value: string) => (value === '' ? { value, quoted_empty: true } : value) },
};

/** A Readable that pulls each batch when the reader asks for more, and stops the query when destroyed. */
class BatchReadable<T> extends Readable {
  readonly #batches: Batches<T>;
  readonly #encode: (rows: T[], first: boolean) => string;
  #pending: T[] | undefined;
  #first = true;
  #busy = false;

  constructor(batches: Batches<T>, firstBatch: T[], encode: (rows: T[], first: boolean) => string) {
    super({ highWaterMark: 256 * 1024 });
    this.#batches = batches;
    this.#pending = firstBatch;
    this.#encode = encode;
  }

  override _read(): void {
    if (this.#busy) return;
    this.#busy = true;
    this.#next().catch((err: unknown) => this.destroy(err as Error));
  }

  async #next(): Promise<void> {
    const rows = this.#pending ?? (await this.#batches.next());
    this.#pending = undefined;
    if (this.destroyed) return;
    if (rows.length === 0 && !this.#first) {
      await this.#batches.close();
      this.push(null);
      return;
    }
    const text = this.#encode(rows, this.#first);
    this.#first = false;
    this.#busy = false;
    // An empty report still has its header; a batch that encodes to nothing asks for the next.
    if (rows.length === 0) {
      this.push(text);
      this._read();
      return;
    }
    this.push(text);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.#batches.close().then(
      () => callback(error),
      () => callback(error),
    );
  }
}

const CR_LF = Buffer.from('\r\n');

/**
 * COPY ends each record with LF; RFC 4180 wants CRLF. Quotes open and close a value (a doubled
 * quote inside one closes and opens it again), so a line break inside a value is left as it is.
 * The next quote is looked for once per quote, not once per record (a chunk without quotes was
 * otherwise scanned to its end for each of its records).
 */
export function crlfRecords(): Transform {
  let quoted = false;
  return new Transform({
    transform(chunk: Buffer, _encoding, done) {
      const parts: Buffer[] = [];
      let from = 0;
      let at = 0;
      let quote = chunk.indexOf(0x22);
      for (;;) {
        if (quoted) {
          if (quote === -1) break;
          quoted = false;
          at = quote + 1;
          quote = chunk.indexOf(0x22, at);
          continue;
        }
        const newline = chunk.indexOf(0x0a, at);
        if (newline !== -1 && (quote === -1 || newline < quote)) {
          parts.push(chunk.subarray(from, newline), CR_LF);
          from = at = newline + 1;
          continue;
        }
        if (quote === -1) break;
        quoted = true;
        at = quote + 1;
        quote = chunk.indexOf(0x22, at);
      }
      parts.push(chunk.subarray(from));
      done(null, parts.length === 1 ? parts[0] : Buffer.concat(parts));
    },
  });
}

/**
 * The report as CSV (UTF-8, a header row of the field names). On PostgreSQL the database writes
 * it (COPY, CRLF added here); elsewhere csv-stringify writes the cells the database formatted.
 */
export function csvExport(source: CsvSource): Readable {
  if (source.kind === 'copy') {
    const out = crlfRecords();
    pipeline(source.stream, out, () => {});
    return out;
  }
  return new BatchReadable(source.batches, source.first, (rows, first) => {
    return stringify(first ? [HEADER as string[], ...rows] : rows, CSV_OPTIONS);
  });
}

/**
 * Whether a stream holds more than its buffer. exceljs's zip (archiver) uses readable-stream 2,
 * whose streams predate `writableNeedDrain`: their state says it.
 */
function needsDrain(stream: Writable): boolean {
  return stream.writableNeedDrain ?? (stream as unknown as { _writableState?: { needDrain?: boolean } })._writableState?.needDrain ?? false;
}

/** Waits until none of `streams` holds more than its buffer (or `signal` aborts). */
async function drained(streams: readonly Writable[], signal: AbortSignal): Promise<void> {
  for (const stream of streams) {
    if (needsDrain(stream) && !stream.destroyed) await once(stream, 'drain', { signal });
  }
}

/**
 * The streams a worksheet writes its XML into, on its way to the zip: exceljs writes without
 * waiting for them, so the writer waits here until they have drained.
 */
function sheetPipes(sheet: ExcelJS.Worksheet): Writable[] {
  const stream = (sheet as unknown as { stream?: { pipes?: Writable[] } }).stream;
  return stream?.pipes ?? [];
}

/**
 * exceljs works out each cell's style id afresh (every cell holds its own copy of its column's
 * style, and the id is found by writing the style's XML): four times the cost of the rest of the
 * row. Columns here differ only by number format, so the id of a format and cell type is kept.
 */
function rememberStyles(workbook: ExcelJS.stream.xlsx.WorkbookWriter): void {
  const styles = (workbook as unknown as { styles?: { addStyleModel?: (model: { numFmt?: string } | undefined, cellType: number) => number } }).styles;
  const addStyleModel = styles?.addStyleModel?.bind(styles);
  if (!styles || !addStyleModel) return;
  const ids = new Map<string, number>();
  styles.addStyleModel = (model, cellType) => {
    const key = `${model?.numFmt ?? ''}|${cellType}`;
    let id = ids.get(key);
    if (id === undefined) {
      id = addStyleModel(model, cellType);
      ids.set(key, id);
    }
    return id;
  };
}

/**
 * The report as an Excel workbook (.xlsx) from exceljs's streaming WorkbookWriter: one sheet
 * "Transactions" (more past Excel's row limit), a header row, typed cells (amounts and dates).
 */
export function excelExport(batches: RowBatches, firstBatch: ReportRow[], created: Date): Readable {
  const out = new PassThrough({ highWaterMark: 256 * 1024 });
  const abort = new AbortController();
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: out, useStyles: true, useSharedStrings: false });
  rememberStyles(workbook);
  workbook.created = created;
  workbook.modified = created;
  workbook.creator = 'Payments';
  const columns = REPORT_FIELDS.map((field) => ({ header: field.name, key: field.key, width: Math.max(12, field.name.length + 2), style: excelFormat(field) ? { numFmt: excelFormat(field)! } : {} }));
  let sheetCount = 0;
  const newSheet = () => {
    sheetCount += 1;
    const sheet = workbook.addWorksheet(sheetCount === 1 ? 'Transactions' : `Transactions ${sheetCount}`, { views: [{ state: 'frozen', ySplit: 1 }] });
    sheet.columns = columns;
    return sheet;
  };

  const write = async () => {
    let sheet = newSheet();
    let rowsInSheet = 0;
    let rows = firstBatch;
    while (rows.length > 0 && !abort.signal.aborted) {
      for (const row of rows) {
        if (rowsInSheet === EXCEL_ROWS_PER_SHEET) {
          sheet.commit();
          sheet = newSheet();
          rowsInSheet = 0;
        }
        sheet.addRow(excelRow(row)).commit();
        rowsInSheet += 1;
      }
      await drained([...sheetPipes(sheet), out], abort.signal);
      rows = await batches.next();
    }
    await batches.close();
    if (abort.signal.aborted) return;
    sheet.commit();
    await workbook.commit();
  };

  // The client went away (or the write failed): stop reading rows and free the query.
  out.once('close', () => {
    abort.abort();
    void batches.close();
  });
  write().catch((err: unknown) => {
    if (!abort.signal.aborted) out.destroy(err as Error);
  });
  return out;
}
