import { isUtf8 } from 'node:buffer';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CharityRecord, type Registry, charityId } from '../../../src/domain/charities/charity.ts';
import { detectFormat } from '../../../src/domain/charities/file-format.ts';
import type { RowFormat } from '../../../src/domain/charities/row-format.ts';
import { searchText } from '../../../src/domain/charities/search-text.ts';
import { type ImportReport, CharityImportService, MAX_LISTED_REJECTIONS } from '../../../src/modules/charities/import-service.ts';
import { SAMPLE_DIR } from '../../../src/modules/charities/import-samples.ts';
import { CHARITY_COLUMNS } from '../../../src/modules/charities/charity-rows.ts';
import { CharityImportRepository } from '../../../src/modules/charities/import-repository.ts';
import { OperatorInputError } from '../../../src/platform/errors.ts';
import { type Store, openPostgres } from '../../../src/platform/database/database.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { freshDatabase, freshStore } from '../../helpers/store.ts';
import { FUZZ_SCALE } from '../../helpers/fuzz.ts';

/**
 * Generative robustness tests of the charity directory importer (`payments charities import`).
 * Files are built from real shipped rows (IRS EO BMF: VT and the territories/foreign eo4 file;
 * the CRA listing sample, widened with copies under other BNs), then damaged: character edits,
 * truncated lines, extra or missing columns, stray quotes, embedded CR/LF/TAB, NUL and control
 * characters, invalid UTF-8 and Latin-1 bytes, very long fields, blank lines, duplicate rows,
 * header variants (case, spaces, BOM, trailing tab, CRA column order), mixed line endings and a
 * file cut mid-line. Whatever the rows, for a file with a recognizable header:
 * - the import does not throw, and its report adds up (read = inserted + updated + unchanged +
 *   rejected, exactly those fields, per file and in total);
 * - read counts the non-blank data lines; every rejection names a damaged line of the file with a
 *   reason, in file order, and agrees line for line with the row parser run on its own;
 * - every untouched row is imported with the values of a clean import (unless a later damaged line
 *   still carries its number and so legitimately overrides it);
 * - every stored row is whole and consistent (its id, number, normalized name and city), and is
 *   the last accepted line of its charity;
 * - a re-import of the same file changes nothing and keeps every CharityId.
 * Half of the runs import into an empty directory (the bulk first load; on PostgreSQL that is COPY
 * parsed on worker threads), the other half into a directory already holding the rows.
 * A header that is not recognizable gives an OperatorInputError naming the file, and writes nothing.
 *
 * FUZZ_SCALE=10 runs every property ten times as long. fast-check prints the seed and the shrunk
 * counterexample of a failure; replay it with `{ seed, path }` in the property's parameters.
 */
const RUNS = { irs: Math.round(40 * FUZZ_SCALE), cra: Math.round(30 * FUZZ_SCALE), unknownHeader: Math.round(60 * FUZZ_SCALE), large: Math.round(2 * FUZZ_SCALE) };

let store: Store;
let importer: CharityImportService;
let drop: (() => Promise<void>) | undefined;
let dir: string;
let fileNo = 0;

// ---------------------------------------------------------------------------------------------
// Real rows to start from

const sampleLines = (name: string, ending: string) => readFileSync(join(SAMPLE_DIR, name), 'utf8').split(ending).filter((l) => l !== '');
const vt = sampleLines('irs-eo-bmf-VT.csv', '\r\n');
const eo4 = sampleLines('irs-eo-bmf-eo4-territories-intl.csv', '\r\n');
const craSample = sampleLines('cra-charities-listing-sample.txt', '\n');

const IRS_HEADER = vt[0]!;
/** 250 VT rows and 100 eo4 rows (territories, foreign rows, quoted fields with commas). */
const IRS_ROWS = [...vt.slice(1, 251), ...eo4.slice(1).filter((l) => l.includes('"')).slice(0, 50), ...eo4.slice(1).filter((l) => !l.includes('"')).slice(0, 50)];
const CRA_HEADER = craSample[0]!;
/** The 8 real CRA rows, and 152 copies of them under other BNs and names (the sample is small). */
const CRA_ROWS = [
  ...craSample.slice(1),
  ...Array.from({ length: 152 }, (_, i) => {
    const fields = craSample[1 + (i % 8)]!.split('\t');
    fields[0] = `${String(800_000_000 + i * 7919).padStart(9, '0')}RR${String(1 + (i % 3)).padStart(4, '0')}`;
    fields[1] = `${fields[1]} ${['NORD', 'SUD', 'EST', 'OUEST'][i % 4]} ${i}`;
    return fields.join('\t');
  }),
];

type Kind = 'irs' | 'cra';
const SOURCES: Record<Kind, { header: string; rows: string[]; sep: string; registry: Registry }> = {
  irs: { header: IRS_HEADER, rows: IRS_ROWS, sep: ',', registry: 'IRS' },
  cra: { header: CRA_HEADER, rows: CRA_ROWS, sep: '\t', registry: 'CRA' },
};
/** The registry number a clean row stands for (independently of the parser). */
const numberOf = (kind: Kind, row: string) => row.split(SOURCES[kind].sep)[0]!;

// ---------------------------------------------------------------------------------------------
// The database

type DbRow = Record<string, unknown>;
const COLUMNS = CHARITY_COLUMNS.map(([n]) => n);
const SELECT = `SELECT ${COLUMNS.join(', ')}, updated_at FROM charities`;
const asRow = (r: CharityRecord): DbRow => Object.fromEntries(CHARITY_COLUMNS.map(([n, , value]) => [n, value(r)]));
const withoutTime = ({ updated_at: _, ...rest }: DbRow) => rest;
const allRows = async () => store.sql.query<DbRow>(`${SELECT} ORDER BY id`);
const rowsById = async (ids: string[]) => new Map((await store.sql.query<DbRow>(`${SELECT} WHERE id = ANY($1::uuid[])`, [ids])).map((r) => [r.id as string, r]));
const count = async () => (await store.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM charities'))[0]!.n;
const emptyDirectory = async () => {
  await store.sql.exec('DELETE FROM charity_groups; DELETE FROM charity_words; DELETE FROM charity_names; DELETE FROM charities');
};

/** Every row of a clean import of the source rows, by CharityId (without updated_at). */
const clean = new Map<string, DbRow>();

const writeFile = (name: string, content: Buffer | string) => {
  const path = join(dir, `${++fileNo}-${name}`);
  writeFileSync(path, content);
  return path;
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'charity-import-fuzz-'));
  const url = testDatabaseUrl();
  if (url) {
    // On PostgreSQL the importer gets its database URL, as in production: the first load of an
    // empty directory then goes by COPY, parsed on worker threads.
    const db = await freshDatabase(url);
    store = openPostgres(db.url, 4);
    importer = new CharityImportService({ repository: new CharityImportRepository(store, db.url) });
    drop = db.drop;
  } else {
    store = await freshStore();
    importer = new CharityImportService({ repository: new CharityImportRepository(store) });
  }
  const files = (['irs', 'cra'] as const).map((k) => writeFile(`clean-${k}.txt`, [SOURCES[k].header, ...SOURCES[k].rows, ''].join('\r\n')));
  const report = await importer.importFiles(files);
  expect(report.totals).toMatchObject({ read: IRS_ROWS.length + CRA_ROWS.length, inserted: IRS_ROWS.length + CRA_ROWS.length, rejected: 0 });
  for (const row of await allRows()) clean.set(row.id as string, withoutTime(row));
  expect(clean.size).toBe(IRS_ROWS.length + CRA_ROWS.length);
}, 120_000);
afterAll(async () => {
  await store?.close();
  await drop?.();
  rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Damage

/** Characters that break rows in interesting ways, and any others. */
const oddChar = fc.oneof(
  fc.constantFrom(',', '"', '""', '\t', '\r', '\n', '\r\n', '\0', '\x01', '\x1b', '\x7f', '\x85', ' ', 'A', '9', '-', 'É', 'ß', 'ﬁ', '\u00a0', '\u2028', '\uFEFF', '\uFFFD', '😀', '\\', '\\.', ';', '%'),
  fc.string({ unit: 'binary', minLength: 1, maxLength: 3 }),
);

/** A long value that does not compress (PostgreSQL compresses long index entries that repeat). */
const longValue = fc.record({ seed: fc.integer(), length: fc.integer({ min: 300, max: 40_000 }), alphabet: fc.constantFrom('ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'ABCDEFGH IJKLMNOP QRSTUVWXYZ ', 'ÉÈÀÇÔéèàçô', '中文字慈善基金会', 'abc😀') }).map(
  ({ seed, length, alphabet }) => {
    const chars = [...alphabet];
    let x = seed >>> 0 || 1;
    let s = '';
    for (let i = 0; i < length; i++) {
      x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0;
      s += chars[(x >>> 16) % chars.length];
    }
    return s;
  },
);

type Damage =
  | { op: 'edit'; at: number; del: number; text: string }
  | { op: 'truncate'; at: number }
  | { op: 'extraColumn'; text: string }
  | { op: 'dropColumn'; at: number }
  | { op: 'quote'; at: number }
  | { op: 'longField'; at: number; text: string }
  | { op: 'pad'; at: number; text: string }
  | { op: 'latin1' }
  | { op: 'bytes'; at: number; bytes: number[] };

const damage: fc.Arbitrary<Damage> = fc.oneof(
  fc.record({ op: fc.constant('edit' as const), at: fc.nat(), del: fc.integer({ min: 0, max: 3 }), text: fc.oneof(oddChar, fc.constant('')) }),
  fc.record({ op: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('extraColumn' as const), text: fc.oneof(fc.constant(''), fc.string({ maxLength: 10 })) }),
  fc.record({ op: fc.constant('dropColumn' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('quote' as const), at: fc.nat() }),
  fc.record({ op: fc.constant('longField' as const), at: fc.nat(), text: longValue }),
  fc.record({ op: fc.constant('pad' as const), at: fc.nat(), text: fc.constantFrom(' ', '  ', '\t', '\u00a0', '\x0b') }),
  fc.record({ op: fc.constant('latin1' as const) }),
  fc.record({ op: fc.constant('bytes' as const), at: fc.nat(), bytes: fc.array(fc.oneof(fc.integer({ min: 0x80, max: 0xff }), fc.constantFrom(0x00, 0x0d, 0xc3, 0xef)), { minLength: 1, maxLength: 4 }) }),
);

/** A damaged row as bytes: string damage first, byte damage last. */
function damaged(row: string, sep: string, damages: Damage[]): Buffer {
  let text = row;
  let latin1 = false;
  const byteDamage: { at: number; bytes: number[] }[] = [];
  for (const d of damages) {
    const fields = text.split(sep);
    switch (d.op) {
      case 'edit': {
        const at = d.at % (text.length + 1);
        text = text.slice(0, at) + d.text + text.slice(at + d.del);
        break;
      }
      case 'truncate':
        text = text.slice(0, d.at % (text.length + 1));
        break;
      case 'extraColumn':
        text = `${text}${sep}${d.text}`;
        break;
      case 'dropColumn':
        fields.splice(d.at % fields.length, 1);
        text = fields.join(sep);
        break;
      case 'quote': {
        const at = d.at % (text.length + 1);
        text = `${text.slice(0, at)}"${text.slice(at)}`;
        break;
      }
      case 'longField':
        fields[d.at % fields.length] = d.text;
        text = fields.join(sep);
        break;
      case 'pad': {
        const i = d.at % fields.length;
        fields[i] = `${d.text}${fields[i]}${d.text}`;
        text = fields.join(sep);
        break;
      }
      case 'latin1':
        latin1 = true;
        if (!/[^\x00-\x7f]/.test(text)) text = text.replace(/ /, ' É ');
        break;
      case 'bytes':
        byteDamage.push(d);
        break;
    }
  }
  // Latin-1 cannot write every character: those become '?', as a Latin-1 export would have them.
  let bytes = latin1 ? Buffer.from(text.replace(/[^\x00-\xff]/gu, '?'), 'latin1') : Buffer.from(text, 'utf8');
  for (const d of byteDamage) {
    const at = d.at % (bytes.length + 1);
    bytes = Buffer.concat([bytes.subarray(0, at), Buffer.from(d.bytes), bytes.subarray(at)]);
  }
  return bytes;
}

// ---------------------------------------------------------------------------------------------
// Files

type Slot =
  | { kind: 'clean'; row: number }
  | { kind: 'duplicate'; of: number }
  | { kind: 'blank'; text: string }
  | { kind: 'damaged'; row: number; damages: Damage[] };

const slot = (rows: number): fc.Arbitrary<Slot> =>
  fc.oneof(
    { weight: 10, arbitrary: fc.record({ kind: fc.constant('clean' as const), row: fc.nat(rows - 1) }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('duplicate' as const), of: fc.nat() }) },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('blank' as const), text: fc.constantFrom('', ' ', '\t', '  \t ', '\r') }) },
    { weight: 5, arbitrary: fc.record({ kind: fc.constant('damaged' as const), row: fc.nat(rows - 1), damages: fc.array(damage, { minLength: 1, maxLength: 3 }) }) },
  );

interface HeaderVariant {
  bom: boolean;
  /** Per column: 0 as is, 1 lower case, 2 mixed case. */
  cases: number[];
  /** Per column: spaces around the name. */
  pads: boolean[];
  trailing: string;
  /** CRA only: the column order, and whether labels keep their colon. */
  order: number[];
  colons: boolean;
}

const headerVariant = (kind: Kind): fc.Arbitrary<HeaderVariant> => {
  const width = SOURCES[kind].header.split(SOURCES[kind].sep).filter((l) => l.trim() !== '').length;
  const columns = [...Array(width).keys()];
  return fc.record({
    bom: fc.boolean(),
    cases: fc.array(fc.integer({ min: 0, max: 2 }), { minLength: width, maxLength: width }),
    pads: fc.array(fc.boolean(), { minLength: width, maxLength: width }),
    trailing: kind === 'cra' ? fc.constantFrom('', '\t', '\t ') : fc.constantFrom('', ' ', '\t'),
    // The IRS format wants EIN first; the CRA listing finds its columns by label.
    order: kind === 'cra' ? fc.shuffledSubarray(columns, { minLength: width, maxLength: width }) : fc.constant(columns),
    colons: kind === 'cra' ? fc.boolean() : fc.constant(true),
  });
};

const recase = (name: string, c: number) => (c === 0 ? name : c === 1 ? name.toLowerCase() : [...name].map((ch, i) => (i % 2 ? ch.toLowerCase() : ch.toUpperCase())).join(''));
const reorder = (kind: Kind, row: string, order: number[]) => {
  const fields = row.split(SOURCES[kind].sep);
  return [...order.map((i) => fields[i] ?? ''), ...fields.slice(order.length)].join(SOURCES[kind].sep);
};

function headerBytes(kind: Kind, v: HeaderVariant): Buffer {
  const { sep } = SOURCES[kind];
  const names = SOURCES[kind].header.split(sep).filter((l) => l.trim() !== '');
  const text =
    v.order
      .map((i) => {
        let name = recase(names[i]!, v.cases[i]!);
        if (!v.colons) name = name.replace(/:\s*$/, '');
        return v.pads[i] ? ` ${name} ` : name;
      })
      .join(sep) + v.trailing;
  return Buffer.concat([Buffer.from(v.bom ? [0xef, 0xbb, 0xbf] : []), Buffer.from(text, 'utf8')]);
}

interface FileSpec {
  kind: Kind;
  header: HeaderVariant;
  slots: Slot[];
  endings: ('\r\n' | '\n')[];
  mixedEndings: boolean;
  finalEnding: boolean;
  /** Cut the last line at this many bytes (a file cut mid-line). */
  cut: number | null;
}

const fileSpec = (kind: Kind): fc.Arbitrary<FileSpec> =>
  fc.record({
    kind: fc.constant(kind),
    header: headerVariant(kind),
    slots: fc.array(slot(SOURCES[kind].rows.length), { maxLength: 60 }),
    endings: fc.array(fc.constantFrom('\r\n' as const, '\n' as const), { minLength: 1, maxLength: 8 }),
    mixedEndings: fc.boolean(),
    finalEnding: fc.boolean(),
    cut: fc.option(fc.nat(), { freq: 4 }),
  });

/** One physical line of the built file, as the importer will number it. */
interface Line {
  number: number;
  bytes: Buffer;
  /** An untouched source row: its registry number. */
  clean?: string;
  damaged: boolean;
}

function build(spec: FileSpec, source: string[] = SOURCES[spec.kind].rows): { bytes: Buffer; lines: Line[]; cleanRows: { number: string; line: number }[] } {
  const { kind } = spec;
  const rows = source.map((r) => reorder(kind, r, spec.header.order));
  const pieces: { bytes: Buffer; clean?: string; damaged: boolean }[] = [];
  const cleanSlots: string[] = [];
  for (const s of spec.slots) {
    if (s.kind === 'clean' || (s.kind === 'duplicate' && cleanSlots.length > 0)) {
      const row = s.kind === 'clean' ? source[s.row]! : cleanSlots[s.of % cleanSlots.length]!;
      const text = s.kind === 'clean' ? rows[s.row]! : reorder(kind, row, spec.header.order);
      if (s.kind === 'clean') cleanSlots.push(row);
      pieces.push({ bytes: Buffer.from(text, 'utf8'), clean: numberOf(kind, row), damaged: false });
    } else if (s.kind === 'blank') {
      pieces.push({ bytes: Buffer.from(s.text, 'utf8'), damaged: false });
    } else if (s.kind === 'damaged') {
      pieces.push({ bytes: damaged(rows[s.row]!, SOURCES[kind].sep, s.damages), damaged: true });
    }
  }
  const last = pieces.at(-1);
  if (spec.cut !== null && last && last.bytes.length > 1) {
    last.bytes = last.bytes.subarray(0, 1 + (spec.cut % (last.bytes.length - 1)));
    last.clean = undefined;
    last.damaged = true;
  }
  const parts: Buffer[] = [headerBytes(kind, spec.header)];
  const lineEnding = (i: number) => Buffer.from(spec.mixedEndings ? spec.endings[i % spec.endings.length]! : spec.endings[0]!);
  parts.push(lineEnding(0));
  pieces.forEach((p, i) => {
    parts.push(p.bytes);
    const final = i === pieces.length - 1;
    if (!final || (spec.finalEnding && spec.cut === null)) parts.push(lineEnding(i + 1));
  });
  const bytes = Buffer.concat(parts);

  // Number the physical lines independently of the importer: LF ends a line, a CR before it is
  // part of the ending; a damaged row with an LF in it is several lines.
  const lines: Line[] = [];
  const cleanRows: { number: string; line: number }[] = [];
  let number = 1;
  for (const p of pieces) {
    const split = splitLines(p.bytes);
    for (const b of split) lines.push({ number: ++number, bytes: b, damaged: p.damaged, clean: p.clean });
    if (p.clean) cleanRows.push({ number: p.clean, line: number });
  }
  return { bytes, lines, cleanRows };
}

function splitLines(bytes: Buffer): Buffer[] {
  const out: Buffer[] = [];
  let start = 0;
  for (;;) {
    const lf = bytes.indexOf(0x0a, start);
    const end = lf < 0 ? bytes.length : lf;
    out.push(bytes.subarray(start, end > start && bytes[end - 1] === 0x0d && lf >= 0 ? end - 1 : end));
    if (lf < 0) return out;
    start = lf + 1;
  }
}

/** The documented decoding: UTF-8 when the line is valid UTF-8, Latin-1 otherwise. */
const decode = (b: Buffer) => (isUtf8(b) ? b.toString('utf8') : b.includes(Buffer.from([0xef, 0xbf, 0xbd])) ? b.toString('utf8') : b.toString('latin1'));
const blank = (b: Buffer) => decode(b).trim() === '';

// ---------------------------------------------------------------------------------------------
// The properties

const TOTAL_KEYS = ['inserted', 'read', 'rejected', 'unchanged', 'updated'];
const FILE_KEYS = ['file', 'format', 'inserted', 'read', 'rejected', 'rejections', 'unchanged', 'updated'];

function expectReportAddsUp(report: ImportReport) {
  expect(Object.keys(report.totals).sort()).toEqual(TOTAL_KEYS);
  expect(report.files).toHaveLength(1);
  const file = report.files[0]!;
  expect(Object.keys(file).sort()).toEqual(FILE_KEYS);
  for (const k of TOTAL_KEYS) {
    const v = (report.totals as Record<string, number>)[k]!;
    expect(Number.isInteger(v) && v >= 0, k).toBe(true);
    expect((file as unknown as Record<string, number>)[k], k).toBe(v);
  }
  const t = report.totals;
  expect(t.read).toBe(t.inserted + t.updated + t.unchanged + t.rejected);
  expect(file.rejections).toHaveLength(Math.min(t.rejected, MAX_LISTED_REJECTIONS));
}

/** What the row parser alone says of each non-blank data line (the oracle of line numbering). */
function parsedLines(format: RowFormat, lines: Line[]) {
  const rejections: { line: number; reason: string }[] = [];
  const lastById = new Map<string, CharityRecord>();
  const variants = new Map<string, Set<string>>();
  let read = 0;
  for (const l of lines) {
    if (blank(l.bytes)) continue;
    read++;
    const parsed = format.parseRow(decode(l.bytes));
    if (!parsed.ok) {
      rejections.push({ line: l.number, reason: parsed.reason });
      continue;
    }
    lastById.set(parsed.record.id, parsed.record);
    const seen = variants.get(parsed.record.id) ?? new Set();
    seen.add(JSON.stringify(parsed.record));
    variants.set(parsed.record.id, seen);
  }
  const conflicting = [...variants.values()].some((s) => s.size > 1);
  return { read, rejections, lastById, conflicting };
}

async function checkImport(spec: FileSpec, fresh: boolean) {
  await checkBuiltImport(spec.kind, build(spec), fresh, true);
}

/** `known`: the clean rows are source rows, whose values of a clean import are in `clean`. */
async function checkBuiltImport(kind: Kind, built: ReturnType<typeof build>, fresh: boolean, known: boolean) {
  const { registry } = SOURCES[kind];
  const { bytes, lines, cleanRows } = built;
  const path = writeFile(`${kind}.txt`, bytes);
  if (fresh) await emptyDirectory();
  const before = fresh ? 0 : await count();

  const report = await importer.importFiles([path]);

  // The report adds up, with exactly the documented fields.
  expectReportAddsUp(report);
  const file = report.files[0]!;
  expect(file.format).toMatch(kind === 'irs' ? /^IRS EO BMF \(28 columns\)$/ : /^CRA charities listing \(12 columns\)$/);
  // Read: the non-blank lines after the header.
  expect(file.read).toBe(lines.filter((l) => !blank(l.bytes)).length);
  // Every rejection: a damaged, non-blank line of the file, with a reason, in file order.
  const byNumber = new Map(lines.map((l) => [l.number, l]));
  let previous = 1;
  for (const r of file.rejections) {
    expect(Object.keys(r).sort()).toEqual(['line', 'reason']);
    expect(r.line).toBeGreaterThan(previous);
    previous = r.line;
    const line = byNumber.get(r.line);
    expect(line, `line ${r.line} of ${lines.length + 1}`).toBeDefined();
    expect(line!.damaged, `line ${r.line} was not damaged (${r.reason})`).toBe(true);
    expect(blank(line!.bytes)).toBe(false);
    expect(typeof r.reason === 'string' && r.reason.trim().length > 0).toBe(true);
  }
  // The pipeline (streaming, decoding, numbering, batches or parsing threads) agrees with the
  // row parser run line by line.
  const format = detectFormat(bytes.subarray(0, bytes.indexOf(0x0a)).toString('latin1').replace(/\r$/, ''));
  expect(format?.label).toBe(file.format);
  const oracle = parsedLines(format!, lines);
  expect(file.read).toBe(oracle.read);
  expect(file.rejections).toEqual(oracle.rejections.slice(0, MAX_LISTED_REJECTIONS));
  expect(file.rejected).toBe(oracle.rejections.length);

  // Every untouched row is there with the values of a clean import, unless a later damaged line
  // still carries its number (the later row wins).
  const stored = await rowsById([...new Set([...cleanRows.map((c) => charityId(registry, c.number)), ...oracle.lastById.keys()])]);
  const damagedText = lines.filter((l) => l.damaged).map((l) => ({ number: l.number, text: decode(l.bytes).replace(/\s+/g, '').toUpperCase() }));
  for (const c of cleanRows) {
    const id = charityId(registry, c.number);
    expect(stored.get(id), `${c.number} (line ${c.line})`).toBeDefined();
    const overridden = damagedText.some((l) => l.number > c.line && l.text.includes(c.number));
    if (known && !overridden) expect(withoutTime(stored.get(id)!), `${c.number} (line ${c.line})`).toEqual(clean.get(id));
  }
  // Every accepted charity is stored whole: exactly the last accepted line for it.
  for (const [id, record] of oracle.lastById) expect(withoutTime(stored.get(id)!), record.registryNumber).toEqual(asRow(record));
  if (fresh) {
    expect(file.inserted).toBe(oracle.lastById.size);
    expect(await count()).toBe(oracle.lastById.size);
  } else {
    expect(await count()).toBe(before + file.inserted);
  }

  // A re-import changes nothing and keeps every CharityId (in-file duplicates with different
  // values update each other again, and end the same).
  const first = await allRows();
  const again = await importer.importFiles([path]);
  expectReportAddsUp(again);
  const file2 = again.files[0]!;
  expect(file2).toMatchObject({ read: file.read, inserted: 0, rejected: file.rejected, rejections: file.rejections });
  const second = await allRows();
  if (oracle.conflicting) {
    expect(second.map(withoutTime)).toEqual(first.map(withoutTime));
  } else {
    expect(file2).toMatchObject({ updated: 0, unchanged: file.read - file.rejected });
    expect(second).toEqual(first);
  }
}

/** Every row of the directory is consistent in itself (no half-written row). */
async function expectWholeRows() {
  for (const r of await allRows()) {
    const number = r.registry_number as string;
    expect(r.id).toBe(charityId(r.registry as Registry, number));
    expect(r.registry === 'IRS' ? /^\d{9}$/.test(number) : /^\d{9}RR\d{4}$/.test(number), number).toBe(true);
    expect(r.ein).toBe(r.registry === 'IRS' ? `${number.slice(0, 2)}-${number.slice(2)}` : number);
    expect(r.tax_id_root).toBe(number.slice(0, 9));
    expect(typeof r.name === 'string' && r.name.trim() !== '').toBe(true);
    expect(r.search_name).toBe(searchText(r.name as string));
    expect(r.city_key).toBe(r.city ? searchText(r.city as string) || null : null);
  }
}

describe('importing damaged real rows', () => {
  for (const kind of ['irs', 'cra'] as const) {
    it(`${kind.toUpperCase()}: never throws, reports every row, imports every untouched row, and re-imports to the same directory`, async () => {
      await fc.assert(
        fc.asyncProperty(fileSpec(kind), fc.boolean(), async (spec, fresh) => {
          await checkImport(spec, fresh);
        }),
        { numRuns: RUNS[kind] },
      );
      await expectWholeRows();
    }, 120_000 * FUZZ_SCALE);
  }
});

describe('headers', () => {
  /** Headers that name neither format: random text, or a real header missing what identifies it. */
  const IRS_NAMES = IRS_HEADER.split(',');
  const CRA_LABELS = CRA_HEADER.split('\t');
  const unknownHeader = fc.oneof(
    fc.string({ maxLength: 200 }),
    fc.string({ unit: 'binary', maxLength: 50 }),
    fc.constant(''),
    fc.constant('id,name'),
    // An IRS header without one of the columns the mapping needs, or with EIN not first.
    fc.nat(10).map((i) => IRS_NAMES.filter((n) => n !== ['EIN', 'NAME', 'ICO', 'STREET', 'CITY', 'STATE', 'ZIP', 'GROUP', 'AFFILIATION', 'DEDUCTIBILITY', 'NTEE_CD'][i]).join(',')),
    fc.constant([...IRS_NAMES.slice(1), 'EIN'].join(',')),
    fc.constant(IRS_NAMES.join('\t')),
    fc.constant(IRS_NAMES.join(';')),
    // A CRA header without its BN, name or status column, or comma-separated.
    fc.nat(2).map((i) => CRA_LABELS.filter((_, j) => j !== [0, 1, 2][i]).join('\t')),
    fc.constant(CRA_LABELS.join(',')),
  );

  it('a file whose header is not recognizable is refused with a clear error naming it, and nothing is written', async () => {
    const good = writeFile('good.csv', [IRS_HEADER, ...IRS_ROWS.slice(0, 5)].join('\r\n'));
    await fc.assert(
      fc.asyncProperty(unknownHeader, fc.constantFrom('\r\n', '\n', ''), fc.array(fc.constantFrom(...IRS_ROWS.slice(0, 20), ...CRA_ROWS.slice(0, 20)), { maxLength: 5 }), async (header, ending, rows) => {
        // The first line is the header, whatever follows it.
        fc.pre(detectFormat(header.split('\n')[0]!.replace(/\r$/, '')) === null);
        const path = writeFile('unknown.csv', Buffer.from(header + ending + rows.join(ending), 'utf8'));
        const before = await allRows();
        const error = await importer.importFiles([good, path]).then(
          () => undefined,
          (err: unknown) => err,
        );
        expect(error).toBeInstanceOf(OperatorInputError);
        expect((error as Error).message).toContain(path);
        expect((error as Error).message).toMatch(/not an IRS EO BMF extract .* nor a CRA charities listing/);
        expect(await allRows()).toEqual(before);
      }),
      { numRuns: RUNS.unknownHeader },
    );
  });

  it('a file with a header and no rows imports nothing, and says so', async () => {
    for (const content of [IRS_HEADER, `${IRS_HEADER}\r\n`, `${CRA_HEADER}\n\n  \n\t\n`]) {
      const report = await importer.importFiles([writeFile('header-only.txt', content)]);
      expect(report.totals).toEqual({ read: 0, inserted: 0, updated: 0, unchanged: 0, rejected: 0 });
    }
  });
});

describe('regressions found by the properties', () => {
  const irsRow = IRS_ROWS[3]!;
  const ein = numberOf('irs', irsRow);
  const withField = (row: string, index: number, value: string) => row.split(',').map((v, i) => (i === index ? value : v)).join(',');
  /** Letters that do not repeat (PostgreSQL would compress a repeating index entry). */
  const noisy = (length: number) => {
    let x = 1;
    return Array.from({ length }, () => String.fromCharCode(65 + ((x = (Math.imul(x, 1_103_515_245) + 12_345) >>> 0) >>> 16) % 26)).join('');
  };

  beforeAll(async () => {
    await store.sql.query('DELETE FROM charities WHERE id = $1', [charityId('IRS', ein)]);
  });

  it('a UTF-8 byte order mark before the header is not a reason to refuse the file', async () => {
    // Was: OperatorInputError "not an IRS EO BMF extract": the header is read as Latin-1, so the
    // BOM arrived as "ï»¿" and detectFormat only stripped U+FEFF.
    for (const [header, row] of [[IRS_HEADER, IRS_ROWS[0]!], [CRA_HEADER, CRA_ROWS[0]!]] as const) {
      const path = writeFile('bom.txt', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(`${header}\r\n${row}\r\n`)]));
      const report = await importer.importFiles([path]);
      expect(report.totals).toMatchObject({ read: 1, rejected: 0 });
    }
  });

  it('a NUL character in a row rejects that row, not the whole import', async () => {
    // Was: the import threw `invalid byte sequence for encoding "UTF8": 0x00` (PostgreSQL text
    // cannot hold NUL), leaving the file's other batches unwritten.
    const path = writeFile('nul.csv', [IRS_HEADER, withField(IRS_ROWS[1]!, 1, 'NUL\0NAME'), irsRow, ''].join('\r\n'));
    const report = await importer.importFiles([path]);
    expect(report.files[0]).toMatchObject({ read: 2, rejected: 1, rejections: [{ line: 2, reason: 'NUL character in name' }] });
    expect(await rowsById([charityId('IRS', ein)])).toHaveProperty('size', 1);
  });

  it('a very long name or city rejects that row, not the whole import', async () => {
    // Was: `index row size 6016 exceeds btree version 4 maximum 2704 for index "charity_words_pkey"`
    // (a name word) or "charities_city" (a city): the import threw.
    const path = writeFile('long.csv', [IRS_HEADER, withField(IRS_ROWS[5]!, 1, noisy(6000)), withField(IRS_ROWS[6]!, 4, noisy(3000)), irsRow, ''].join('\r\n'));
    const report = await importer.importFiles([path]);
    expect(report.files[0]).toMatchObject({
      read: 3,
      rejected: 2,
      rejections: [
        { line: 2, reason: 'name longer than 1000 bytes' },
        { line: 3, reason: 'city longer than 1000 bytes' },
      ],
    });
    expect(await rowsById([charityId('IRS', ein)])).toHaveProperty('size', 1);
  });

  it('lists the first 1,000 rejections and counts the rest', async () => {
    const bad = Array.from({ length: 1_200 }, (_, i) => `12345,ROW ${i}`);
    const report = await importer.importFiles([writeFile('many-bad.csv', [IRS_HEADER, ...bad].join('\n'))]);
    expect(report.totals).toMatchObject({ read: 1_200, rejected: 1_200, inserted: 0 });
    expect(report.files[0]!.rejections).toHaveLength(MAX_LISTED_REJECTIONS);
    expect(report.files[0]!.rejections.at(-1)).toEqual({ line: 1_001, reason: '2 fields instead of 28' });
  });
});

describe('a first load after charities were deleted by hand, their names left behind', () => {
  it('leaves charity_names holding exactly the loaded charities', async () => {
    await emptyDirectory();
    await importer.importFiles([writeFile('first.csv', [IRS_HEADER, ...IRS_ROWS.slice(0, 5)].join('\r\n'))]);
    await store.sql.exec('DELETE FROM charity_groups; DELETE FROM charity_words; DELETE FROM charities');
    const report = await importer.importFiles([writeFile('again.csv', [IRS_HEADER, ...IRS_ROWS.slice(2, 8)].join('\r\n'))]);
    expect(report.totals).toMatchObject({ read: 6, rejected: 0 });
    const [ids] = await store.sql.query<{ c: string[]; n: string[] }>(
      'SELECT (SELECT array_agg(id::text ORDER BY id) FROM charities) AS c, (SELECT array_agg(id::text ORDER BY id) FROM charity_names) AS n',
    );
    expect(ids!.c).toHaveLength(6);
    expect(ids!.n).toEqual(ids!.c);
  });
});

describe('a file of several chunks', () => {
  // The real DC file (2.6 MB, 14,121 rows): three 1 MiB chunks, so lines cross chunk boundaries,
  // and on PostgreSQL the first load parses batches on two threads. A few random lines are damaged.
  const dc = sampleLines('irs-eo-bmf-DC.csv', '\r\n').slice(1);

  afterAll(emptyDirectory);

  it('keeps line numbers, rejections and rows right across chunks, into an empty directory or not', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ at: fc.nat(dc.length - 1), damages: fc.array(damage, { minLength: 1, maxLength: 2 }) }), { minLength: 1, maxLength: 12 }),
        fc.constantFrom('\r\n' as const, '\n' as const),
        fc.boolean(),
        async (damages, ending, fresh) => {
          const slots: Slot[] = dc.map((_, row) => ({ kind: 'clean', row }));
          for (const d of damages) slots[d.at] = { kind: 'damaged', row: d.at, damages: d.damages };
          const spec: FileSpec = {
            kind: 'irs',
            header: { bom: false, cases: [], pads: [], trailing: '', order: [...Array(28).keys()], colons: true },
            slots,
            endings: [ending],
            mixedEndings: false,
            finalEnding: true,
            cut: null,
          };
          spec.header.cases = spec.header.order.map(() => 0);
          spec.header.pads = spec.header.order.map(() => false);
          const built = build(spec, dc);
          expect(built.bytes.length).toBeGreaterThan(2 * 1024 * 1024);
          await checkBuiltImport('irs', built, fresh, false);
        },
      ),
      { numRuns: RUNS.large },
    );
  }, 120_000 * FUZZ_SCALE);
});
