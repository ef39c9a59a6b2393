import { open, stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CharityRecord } from '../domain/charities/charity.ts';
import { detectFormat } from '../domain/charities/file-format.ts';
import type { RowFormat } from '../domain/charities/row-format.ts';
import type { SqlClient, Store } from '../store/database.ts';
import { readLines } from './charity-import-reader.ts';
import { CharityWriter } from './charity-import-writer.ts';
import { OperatorInputError } from './partners.ts';

export interface Rejection {
  line: number;
  reason: string;
}

export interface ImportFileReport {
  file: string;
  format: string;
  /** Data rows read (the header and blank lines are not rows). */
  read: number;
  inserted: number;
  updated: number;
  /** Rows already in the directory exactly as read: not written. */
  unchanged: number;
  rejected: number;
  /** The first MAX_LISTED_REJECTIONS rejected rows, in file order. */
  rejections: Rejection[];
}

export interface ImportReport {
  files: ImportFileReport[];
  totals: Omit<ImportFileReport, 'file' | 'format' | 'rejections'>;
  seconds: number;
}

export interface ImportProgress {
  file: string;
  bytesDone: number;
  bytesTotal: number;
  rowsRead: number;
}

/** Any fixed number: imports into one database take turns. */
const CHARITY_IMPORT_LOCK = 727_008;
/** Rejections listed per file; beyond this they are counted only (memory stays bounded). */
export const MAX_LISTED_REJECTIONS = 1000;
/** Rows per statement: large enough to amortize a round trip, small enough to stream. */
const DEFAULT_BATCH_SIZE = 2000;
/** The words already sent in this import; cleared when it grows past this (it is only a cache). */
const MAX_KNOWN_WORDS = 500_000;

/** The first line of a file, read without reading the file. */
async function headerLine(path: string): Promise<string> {
  const handle = await open(path, 'r');
  try {
    const buffer = Buffer.alloc(64 * 1024);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    const text = buffer.subarray(0, bytesRead).toString('latin1');
    const end = text.indexOf('\n');
    return (end < 0 ? text : text.slice(0, end)).replace(/\r$/, '');
  } finally {
    await handle.close();
  }
}

/**
 * `payments charities import <file>...`: streams IRS EO BMF and CRA listing files into the
 * directory. Rows are upserted by CharityId; a bad row is rejected with its line number and
 * reason and the import goes on. Every file's format is checked before anything is written.
 */
export class CharityImportService {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async importFiles(paths: string[], options: { onProgress?: (p: ImportProgress) => void; batchSize?: number } = {}): Promise<ImportReport> {
    if (paths.length === 0) throw new OperatorInputError('name at least one file to import');
    const started = performance.now();
    const plan: { path: string; format: RowFormat; size: number }[] = [];
    for (const path of paths) {
      let size: number;
      let header: string;
      try {
        size = (await stat(path)).size;
        header = await headerLine(path);
      } catch (err) {
        throw new OperatorInputError(`cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
      }
      const format = detectFormat(header);
      if (!format) {
        throw new OperatorInputError(
          `${path}: not an IRS EO BMF extract (header EIN,NAME,ICO,...) nor a CRA charities listing (tab-separated, BN/Registration number:, Charity name:, ...)`,
        );
      }
      plan.push({ path, format, size });
    }

    // One import at a time per database, on one connection of its own: PostgreSQL's JIT compiler
    // would spend more time compiling each batch statement than running it.
    return this.#store.withAdvisoryLock(CHARITY_IMPORT_LOCK, async (sql) => {
      await sql.exec('SET jit = off');
      try {
        return await this.#importPlan(sql, plan, options, started);
      } finally {
        await sql.exec('RESET jit');
      }
    });
  }

  async #importPlan(
    sql: SqlClient,
    plan: { path: string; format: RowFormat; size: number }[],
    options: { onProgress?: (p: ImportProgress) => void; batchSize?: number },
    started: number,
  ): Promise<ImportReport> {
    const writer = new CharityWriter(sql);
    const knownWords = new Set<string>();
    const bytesTotal = plan.reduce((sum, p) => sum + p.size, 0);
    let bytesDone = 0;
    const files: ImportFileReport[] = [];
    const load = async () => {
      for (const { path, format } of plan) {
        const report: ImportFileReport = { file: basename(path), format: format.label, read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, rejections: [] };
        files.push(report);
        await this.#importFile(path, format, report, writer, knownWords, options.batchSize ?? DEFAULT_BATCH_SIZE, (bytes) => {
          bytesDone += bytes;
          options.onProgress?.({ file: report.file, bytesDone, bytesTotal, rowsRead: report.read });
        });
      }
    };
    // The first load of a directory (the demo samples, or the national files) builds the indexes
    // once at the end instead of row by row, in one transaction: if it fails or the process dies,
    // the directory is empty again and keeps its indexes. Readers wait for it (the table is
    // locked while its indexes are rebuilt); there was nothing to find yet anyway. Later imports
    // update rows and indexes in place, batch by batch, and never lock readers out.
    const [{ empty }] = (await sql.query<{ empty: boolean }>('SELECT NOT EXISTS (SELECT 1 FROM charities) AS empty')) as [{ empty: boolean }];
    if (empty) {
      await sql.exec('BEGIN');
      try {
        const dropped = await writer.dropSecondaryIndexes();
        await load();
        await sql.exec(`SET LOCAL maintenance_work_mem = '256MB'`);
        await writer.createIndexes(dropped);
        await writer.refreshGroups();
        await sql.exec('COMMIT');
      } catch (err) {
        await sql.exec('ROLLBACK').catch(() => {});
        throw err;
      }
    } else {
      await load();
      await writer.refreshGroups();
    }
    const totals = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0 };
    for (const f of files) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += f[k];
    // Fresh statistics, so the planner sees a directory that just grew (or appeared).
    if (totals.inserted + totals.updated > 0) await sql.exec('ANALYZE charities; ANALYZE charity_words');
    return { files, totals, seconds: (performance.now() - started) / 1000 };
  }

  async #importFile(
    path: string,
    format: RowFormat,
    report: ImportFileReport,
    writer: CharityWriter,
    knownWords: Set<string>,
    batchSize: number,
    onBytes: (bytes: number) => void,
  ): Promise<void> {
    let batch: CharityRecord[] = [];
    const batchIds = new Set<string>();
    // One batch is written while the next one is parsed.
    let writing: Promise<void> = Promise.resolve();

    const write = async (records: CharityRecord[]) => {
      const fresh: string[] = [];
      for (const r of records) {
        for (const word of r.searchName.split(' ')) {
          if (word && !knownWords.has(word)) {
            knownWords.add(word);
            fresh.push(word);
          }
        }
      }
      if (knownWords.size > MAX_KNOWN_WORDS) knownWords.clear();
      // Words first: a search running meanwhile never lacks the words of a row it can see.
      for (let i = 0; i < fresh.length; i += 5000) await writer.addWords(fresh.slice(i, i + 5000));
      const { inserted, updated } = await writer.upsert(records);
      report.inserted += inserted;
      report.updated += updated;
      report.unchanged += records.length - inserted - updated;
    };
    const flush = async () => {
      const records = batch;
      batch = [];
      batchIds.clear();
      await writing;
      writing = write(records);
      // Awaited at the next flush or at the end; this only keeps an early failure from going unhandled.
      writing.catch(() => {});
    };

    let header = true;
    for await (const lines of readLines(path, onBytes)) {
      for (const line of lines) {
        if (header) {
          header = false;
          continue;
        }
        if (line.text.trim() === '') continue;
        report.read++;
        const parsed = format.parseRow(line.text);
        if (!parsed.ok) {
          report.rejected++;
          if (report.rejections.length < MAX_LISTED_REJECTIONS) report.rejections.push({ line: line.number, reason: parsed.reason });
          continue;
        }
        // The same charity twice in a file: the later row wins, as a second import would.
        if (batchIds.has(parsed.record.id)) await flush();
        batch.push(parsed.record);
        batchIds.add(parsed.record.id);
        if (batch.length >= batchSize) await flush();
      }
    }
    await flush();
    await writing;
  }
}
