/**
 * A SYNTHETIC national-size IRS EO BMF file for the charity benchmark, made from the real rows
 * shipped in seed-data/charities: every EIN is rewritten (a sequence from 100000000), every copy
 * after the first gets its name's last word from another real row, and every row says
 * "SYNTHETIC BENCHMARK ROW" in SORT_NAME. It is written to a temporary directory, never into the
 * repository, and deleted when the benchmark ends.
 */
import { createWriteStream, readFileSync, readdirSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { once } from 'node:events';
import { splitCsvLine } from '../../src/domain/charities/csv-line.ts';

export const SEED_DIR = join(import.meta.dirname, '..', '..', 'seed-data', 'charities');
export const SYNTHETIC_MARK = 'SYNTHETIC BENCHMARK ROW';

export interface RealRow {
  fields: string[];
}

/** The real IRS rows of the shipped samples, and their header line. */
export function realIrsRows(): { header: string; rows: string[][] } {
  let header = '';
  const rows: string[][] = [];
  for (const file of readdirSync(SEED_DIR).filter((f) => f.startsWith('irs-') && f.endsWith('.csv')).sort()) {
    const lines = readFileSync(join(SEED_DIR, file), 'utf8').split('\r\n');
    header = lines[0]!;
    for (const line of lines.slice(1)) {
      const fields = line ? splitCsvLine(line) : null;
      if (fields) rows.push(fields);
    }
  }
  return { header, rows };
}

/** A small deterministic PRNG (mulberry32), so every run generates the same file. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const csvField = (v: string) => (v.includes(',') ? `"${v.replace(/"/g, '""')}"` : v);

/** The EIN of synthetic row i (0-based). */
export const syntheticEin = (i: number) => String(100_000_000 + i);

/** Writes `count` synthetic rows to `path`; returns the names used, for building queries. */
export async function writeSyntheticFile(path: string, count: number): Promise<{ bytes: number }> {
  const { header, rows } = realIrsRows();
  const at = Object.fromEntries(header.split(',').map((h, i) => [h, i]));
  const random = prng(20261121);
  const out = createWriteStream(path);
  let bytes = 0;
  let chunk: string[] = [];
  const write = async (text: string) => {
    bytes += Buffer.byteLength(text);
    if (!out.write(text)) await once(out, 'drain');
  };
  await write(header + '\r\n');
  for (let i = 0; i < count; i++) {
    const base = rows[i % rows.length]!;
    const copy = Math.floor(i / rows.length);
    const fields = [...base];
    fields[at.EIN!] = syntheticEin(i);
    fields[at.SORT_NAME!] = SYNTHETIC_MARK;
    if (copy > 0) {
      const words = base[at.NAME!]!.split(' ');
      const other = rows[Math.floor(random() * rows.length)]![at.NAME!]!.split(' ');
      words[words.length - 1] = other[other.length - 1]!;
      fields[at.NAME!] = words.join(' ');
    }
    chunk.push(fields.map(csvField).join(','));
    if (chunk.length === 5000) {
      await write(chunk.join('\r\n') + '\r\n');
      chunk = [];
    }
  }
  if (chunk.length) await write(chunk.join('\r\n') + '\r\n');
  out.end();
  await once(out, 'finish');
  // On disk before anyone times an import of it: otherwise the kernel writes the fresh file back
  // while the importer runs, and the import pays for the generator's I/O.
  const handle = await open(path, 'r');
  await handle.sync();
  await handle.close();
  return { bytes };
}
