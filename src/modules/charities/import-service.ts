import { stat } from 'node:fs/promises';
import { basename } from 'node:path';
import type { CharityRecord } from '../../domain/charities/charity.ts';
import { detectFormat } from '../../domain/charities/file-format.ts';
import type { RowFormat } from '../../domain/charities/row-format.ts';
import { OperatorInputError } from '../../platform/errors.ts';
import { type CharityImportRepository, type CopySink, type ImportSession, isDuplicateCharity } from './import-repository.ts';
import { headerLine, readLines } from './import-reader.ts';
import { SAMPLE_DIR, sampleFiles } from './import-samples.ts';
import { type BatchReply, ParserThread } from './parser-thread.ts';

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

/** Rejections listed per file; beyond this they are counted only (memory stays bounded). */
export const MAX_LISTED_REJECTIONS = 1000;
/** Threads that parse a COPY load: with two, parsing kept up with PostgreSQL on two cores. */
const PARSER_THREADS = 2;
/** Rows per statement: large enough to amortize a round trip, small enough to stream. */
const DEFAULT_BATCH_SIZE = 2000;
/** The words already sent in this import; cleared when it grows past this (it is only a cache). */
const MAX_KNOWN_WORDS = 500_000;

type Plan = { path: string; format: RowFormat; size: number }[];
interface ImportOptions {
  onProgress?: (p: ImportProgress) => void;
  batchSize?: number;
}
/** Where parsed rows go: upserted in batches, or streamed by COPY into an empty directory. */
type Sink = (records: CharityRecord[], report: ImportFileReport) => Promise<void>;
/** Reads one file into the import, filling its report; `onBytes` reports progress. */
type FileReader = (path: string, format: RowFormat, report: ImportFileReport, onBytes: (bytes: number) => void) => Promise<void>;

/**
 * `payments charities import <file>...`: streams IRS EO BMF and CRA listing files into the
 * directory. Rows are upserted by CharityId; a bad row is rejected with its line number and
 * reason and the import goes on. Every file's format is checked before anything is written.
 * Memory stays flat whatever the size of the files: one chunk of the file and one batch of rows
 * at a time (plus the set of distinct name words, which is bounded).
 */
export class CharityImportService {
  readonly #repository: CharityImportRepository;

  constructor(deps: { repository: CharityImportRepository }) {
    this.#repository = deps.repository;
  }

  /**
   * The demo directory: the shipped samples, imported once per database (a marker row records it),
   * so later starts cost one query. Returns the report when it imported, undefined otherwise.
   */
  async importSamplesOnce(): Promise<ImportReport | undefined> {
    if (await this.#repository.samplesImported()) return undefined;
    const files = sampleFiles();
    const report = await this.importFiles(files);
    await this.#repository.markSamplesImported({ files: files.map((f) => f.slice(SAMPLE_DIR.length + 1)), rows: report.totals.read });
    return report;
  }

  async importFiles(paths: string[], options: ImportOptions = {}): Promise<ImportReport> {
    if (paths.length === 0) throw new OperatorInputError('name at least one file to import');
    const started = performance.now();
    const plan: Plan = [];
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
    return this.#repository.session(async (session) => {
      const files = await this.#importPlan(session, plan, options);
      const totals = { read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0 };
      for (const f of files) for (const k of Object.keys(totals) as (keyof typeof totals)[]) totals[k] += f[k];
      await session.refreshStatistics(totals.inserted + totals.updated > 0);
      return { files, totals, seconds: (performance.now() - started) / 1000 };
    });
  }

  /**
   * The first load of a directory (the demo samples, or the national files) builds the indexes
   * once at the end instead of row by row, in one transaction: if it fails or the process dies,
   * the directory is empty again and keeps its indexes. Readers wait for it (the table is locked
   * while its indexes are rebuilt); there was nothing to find yet anyway. On PostgreSQL the rows
   * go in by COPY. Later imports upsert batch by batch and never lock readers out.
   */
  async #importPlan(session: ImportSession, plan: Plan, options: ImportOptions): Promise<ImportFileReport[]> {
    if (!(await session.directoryIsEmpty())) {
      const files = await this.#load(plan, options, this.#batches(options.batchSize ?? DEFAULT_BATCH_SIZE, upsertSink(session)));
      await session.refreshGroups();
      return files;
    }
    const firstLoad = (copy: boolean) =>
      session.inTransaction(async () => {
        // Names left without their charity (rows deleted by hand) would collide with the load's.
        await session.clearNames();
        const dropped = await session.dropSecondaryIndexes();
        let files: ImportFileReport[];
        if (copy) {
          // Without its primary key too, unless another table references it: a sorted build at
          // the end costs a fraction of 1.9 million random inserts. A duplicate CharityId then
          // shows as a unique violation when the key is built.
          const withoutKey = await session.dropPrimaryKeyUnlessReferenced();
          const sink = session.openCopy();
          const words = new Set<string>();
          files = await this.#load(plan, options, (path, _format, report, onBytes) => this.#copyFile(path, report, onBytes, sink, words));
          await sink.finish();
          if (withoutKey) await session.addPrimaryKey();
          await session.fillNames();
          await session.addWords([...words]);
        } else {
          files = await this.#load(plan, options, this.#batches(options.batchSize ?? DEFAULT_BATCH_SIZE, upsertSink(session)));
        }
        await session.createIndexes(dropped);
        await session.refreshGroups();
        return files;
      });
    if (!session.canCopy) return firstLoad(false);
    try {
      return await firstLoad(true);
    } catch (err) {
      // The same charity twice across the files: COPY cannot take it, upserts can.
      if (!isDuplicateCharity(err)) throw err;
      return firstLoad(false);
    }
  }

  /** Reads every file of the plan with `readFile`, reporting progress; returns one report per file. */
  async #load(plan: Plan, options: ImportOptions, readFile: FileReader): Promise<ImportFileReport[]> {
    const bytesTotal = plan.reduce((sum, p) => sum + p.size, 0);
    let bytesDone = 0;
    const files: ImportFileReport[] = [];
    for (const { path, format } of plan) {
      const report: ImportFileReport = { file: basename(path), format: format.label, read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0, rejections: [] };
      files.push(report);
      await readFile(path, format, report, (bytes) => {
        bytesDone += bytes;
        options.onProgress?.({ file: report.file, bytesDone, bytesTotal, rowsRead: report.read });
      });
    }
    return files;
  }

  /** Batches of parsed records into `sink`, on this thread (the upsert path). */
  #batches(batchSize: number, sink: Sink): FileReader {
    return (path, format, report, onBytes) => this.#importFile(path, format, report, batchSize, sink, onBytes);
  }

  /**
   * The COPY path, one file: its lines are parsed on PARSER_THREADS other threads
   * (parse-worker.ts), batch by batch in turn, while this one reads ahead and streams
   * the COPY text in file order; two batches per thread in flight at most (memory stays a few
   * chunks). Parsing, not PostgreSQL, bounded a single-threaded load. Rows are counted as
   * inserted: COPY takes all of them or fails. The name words found go into `words`.
   */
  async #copyFile(path: string, report: ImportFileReport, onBytes: (bytes: number) => void, sink: CopySink, words: Set<string>): Promise<void> {
    const header = await headerLine(path);
    const parsers = Array.from({ length: PARSER_THREADS }, () => new ParserThread(header));
    try {
      const take = async (reply: BatchReply) => {
        report.read += reply.read;
        report.rejected += reply.rejected;
        report.inserted += reply.rows;
        for (const r of reply.rejections) if (report.rejections.length < MAX_LISTED_REJECTIONS) report.rejections.push(r);
        await sink.write(reply.copyText);
      };
      const inFlight: ReturnType<ParserThread['parse']>[] = [];
      let batchNo = 0;
      for await (const batch of readLines(path, onBytes)) {
        const parsed = parsers[batchNo % parsers.length]!.parse(batchNo === 0 ? batch.slice(1) : batch);
        batchNo++;
        // Awaited in turn below; this only keeps a failure of a later batch from going unhandled.
        parsed.catch(() => {});
        inFlight.push(parsed);
        if (inFlight.length >= 2 * parsers.length) await take(await inFlight.shift()!);
      }
      while (inFlight.length > 0) await take(await inFlight.shift()!);
      for (const parser of parsers) for (const w of await parser.words()) words.add(w);
    } finally {
      await Promise.all(parsers.map((p) => p.close()));
    }
  }

  async #importFile(path: string, format: RowFormat, report: ImportFileReport, batchSize: number, sink: Sink, onBytes: (bytes: number) => void): Promise<void> {
    let batch: CharityRecord[] = [];
    const batchIds = new Set<string>();
    // One batch is written while the next one is parsed.
    let writing: Promise<void> = Promise.resolve();
    const flush = async () => {
      const records = batch;
      batch = [];
      batchIds.clear();
      await writing;
      writing = sink(records, report);
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

/** Batched upserts, each batch's new name words first (a search never lacks a row's words). */
function upsertSink(session: Pick<ImportSession, 'addWords' | 'upsert'>): Sink {
  const knownWords = new Set<string>();
  return async (records, report) => {
    if (records.length === 0) return;
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
    await session.addWords(fresh);
    const { inserted, updated } = await session.upsert(records);
    report.inserted += inserted;
    report.updated += updated;
    report.unchanged += records.length - inserted - updated;
  };
}
