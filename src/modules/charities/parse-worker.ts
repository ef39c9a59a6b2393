/**
 * The importer's second thread for a first load on PostgreSQL: it parses a file's lines into
 * COPY text while the main thread reads the file and streams the text to PostgreSQL. Parsing
 * was the import's bottleneck (one core busy, PostgreSQL mostly idle during COPY).
 *
 * In: { header } as workerData; messages { lines: FileLine[] } and finally { done: true }.
 * Out: per batch { copyText, rows, read, rejected, rejections }; at the end { words }.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { detectFormat } from '../../domain/charities/file-format.ts';
import { copyLine } from './charity-rows.ts';
import type { FileLine } from './import-reader.ts';

export type ParseRequest = { lines: FileLine[] } | { done: true };
export type ParseReply =
  | { copyText: string; rows: number; read: number; rejected: number; rejections: { line: number; reason: string }[] }
  | { words: string[] }
  | { failed: string };

const format = detectFormat((workerData as { header: string }).header);
const words = new Set<string>();

parentPort!.on('message', (message: ParseRequest) => {
  try {
    if ('done' in message) {
      parentPort!.postMessage({ words: [...words] } satisfies ParseReply);
      return;
    }
    if (!format) throw new Error('unknown file format');
    let copyText = '';
    let rows = 0;
    let read = 0;
    const rejections: { line: number; reason: string }[] = [];
    for (const line of message.lines) {
      if (line.text.trim() === '') continue;
      read++;
      const parsed = format.parseRow(line.text);
      if (!parsed.ok) {
        rejections.push({ line: line.number, reason: parsed.reason });
        continue;
      }
      copyText += copyLine(parsed.record);
      rows++;
      for (const w of parsed.record.searchName.split(' ')) if (w) words.add(w);
    }
    parentPort!.postMessage({ copyText, rows, read, rejected: rejections.length, rejections } satisfies ParseReply);
  } catch (err) {
    parentPort!.postMessage({ failed: (err as Error).message } satisfies ParseReply);
  }
});
