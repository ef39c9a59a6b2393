import cliProgress from 'cli-progress';
import type { ImportFileReport, ImportReport } from '../../modules/charities/import-service.ts';
import { type Command, UsageError } from '../command.ts';
import { checkReadableFile } from '../readable-file.ts';

/** Rows written at a time: the CLI's own, passed every time, so that its help tells the truth. */
const BATCH_SIZE_DEFAULT = 2000;
const BATCH_SIZE_MAX = 50_000;

const count = (n: number) => n.toLocaleString('en-US');

function describeCounts(r: Pick<ImportFileReport, 'read' | 'inserted' | 'updated' | 'unchanged' | 'rejected'>): string {
  return `read ${count(r.read)}, inserted ${count(r.inserted)}, updated ${count(r.updated)}, unchanged ${count(r.unchanged)}, rejected ${count(r.rejected)}`;
}

export function describeImport(report: ImportReport): string[] {
  const lines: string[] = [];
  for (const file of report.files) {
    lines.push(`${file.file} (${file.format}): ${describeCounts(file)}`);
    for (const r of file.rejections) lines.push(`  line ${r.line}: ${r.reason}`);
    if (file.rejected > file.rejections.length) lines.push(`  ... and ${count(file.rejected - file.rejections.length)} more rejected rows`);
  }
  const rate = report.seconds > 0 ? Math.round(report.totals.read / report.seconds) : report.totals.read;
  lines.push(`Total: ${describeCounts(report.totals)} in ${report.seconds.toFixed(1)} s (${count(rate)} rows/s)`);
  return lines;
}

export const charityCommands: Command[] = [
  {
    name: 'charities import',
    summary: 'load IRS EO BMF (eo_XX.csv, eo1-eo4.csv) and CRA charities listing files into the charity directory',
    usage: 'charities import <file>... [--batch-size <rows>]',
    options: { 'batch-size': { type: 'string', value: '<rows>', description: `rows written at a time (1 to ${BATCH_SIZE_MAX})`, default: String(BATCH_SIZE_DEFAULT) } },
    async run(ctx, { values, positionals }) {
      if (positionals.length === 0) throw new UsageError(`name at least one file\nusage: payments ${this.usage}`);
      const batchText = values['batch-size'];
      let batchSize = BATCH_SIZE_DEFAULT;
      if (typeof batchText === 'string') {
        batchSize = Number(batchText);
        if (!/^\d+$/.test(batchText) || batchSize < 1 || batchSize > BATCH_SIZE_MAX) throw new UsageError(`--batch-size must be a whole number from 1 to ${BATCH_SIZE_MAX}`);
      }
      // A missing or unreadable file is the operator's to fix: said in words, before the store opens.
      for (const path of positionals) checkReadableFile(path);
      const { charityImport } = await ctx.services();
      // A progress bar on a terminal only (on stderr, so stdout stays the report).
      const bar =
        process.stderr.isTTY && !ctx.json
          ? new cliProgress.SingleBar(
              { format: 'importing {bar} {percentage}% | {done}/{size} MB | {rows} rows | {file}', hideCursor: true, clearOnComplete: true },
              cliProgress.Presets.shades_classic,
            )
          : undefined;
      let started = false;
      try {
        const report = await charityImport.importFiles(positionals, {
          batchSize,
          onProgress: (p) => {
            if (!bar) return;
            const payload = { done: (p.bytesDone / 1e6).toFixed(1), size: (p.bytesTotal / 1e6).toFixed(1), rows: count(p.rowsRead), file: p.file };
            if (!started) {
              bar.start(p.bytesTotal, 0, payload);
              started = true;
            }
            bar.update(p.bytesDone, payload);
          },
        });
        bar?.stop();
        if (ctx.json) return ctx.out(JSON.stringify(report));
        for (const line of describeImport(report)) ctx.out(line);
      } finally {
        bar?.stop();
      }
    },
  },
];
