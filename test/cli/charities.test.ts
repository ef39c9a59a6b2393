import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeFileError } from '../../src/cli/readable-file.ts';
import { SAMPLE_DIR } from '../../src/modules/charities/import-samples.ts';
import { testDatabaseUrl } from '../helpers/database-url.ts';
import { runCliProcess } from '../helpers/process.ts';
import { freshDatabase } from '../helpers/store.ts';

/** `npx payments charities import` as an operator runs it, on this run's kind of store. */
let env: Record<string, string>;
let dir: string;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payments-charities-cli-'));
  const url = testDatabaseUrl();
  const db = url ? await freshDatabase(url) : undefined;
  env = db ? { DATA_DIR: dir, DATABASE_URL: db.url } : { DATA_DIR: join(dir, 'data') };
  cleanup = async () => {
    await db?.drop();
    rmSync(dir, { recursive: true, force: true });
  };
});
afterAll(() => cleanup());

const cli = (...args: string[]) => runCliProcess(args, env);

describe('payments charities import', () => {
  let irsFile: string;
  const craFile = join(SAMPLE_DIR, 'cra-charities-listing-sample.txt');

  beforeAll(() => {
    // The first 200 rows of the Vermont file, row 50 (line 51) with a broken EIN.
    const lines = readFileSync(join(SAMPLE_DIR, 'irs-eo-bmf-VT.csv'), 'utf8').split('\r\n').slice(0, 201);
    lines[50] = lines[50]!.replace(/^\d{9}/, 'X2345678Y');
    irsFile = join(dir, 'eo_vt_head.csv');
    writeFileSync(irsFile, lines.join('\r\n') + '\r\n');
  });

  it('imports the files and reports counts and rejected lines', async () => {
    const res = await cli('charities', 'import', irsFile, craFile);
    // The first command on an embedded data directory makes its database, and says so.
    expect(res.stderr).toBe(testDatabaseUrl() ? '' : `note: no database in ${env.DATA_DIR} yet: a new one is created there (set DATA_DIR to use another)\n`);
    expect(res.code).toBe(0);
    const lines = res.stdout.trim().split('\n');
    expect(lines[0]).toBe('eo_vt_head.csv (IRS EO BMF (28 columns)): read 200, inserted 199, updated 0, unchanged 0, rejected 1');
    expect(lines[1]).toBe('  line 51: EIN "X2345678Y" is not 9 digits');
    expect(lines[2]).toBe('cra-charities-listing-sample.txt (CRA charities listing (12 columns)): read 8, inserted 8, updated 0, unchanged 0, rejected 0');
    expect(lines[3]).toMatch(/^Total: read 208, inserted 207, updated 0, unchanged 0, rejected 1 in \d+\.\d s \([\d,]+ rows\/s\)$/);
  }, 60_000);

  it('prints the report as JSON with --json; a second import changes nothing', async () => {
    const res = await cli('charities', 'import', '--json', irsFile, craFile);
    expect(res.code).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(report.totals).toEqual({ read: 208, inserted: 0, updated: 0, unchanged: 207, rejected: 1 });
    expect(report.files[0].rejections).toEqual([{ line: 51, reason: 'EIN "X2345678Y" is not 9 digits' }]);
  }, 60_000);

  it('refuses files it cannot read or recognize, and a call without files', async () => {
    const other = join(dir, 'donors.csv');
    writeFileSync(other, 'id,name\n1,x\n');
    const unknown = await cli('charities', 'import', craFile, other);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('donors.csv: not an IRS EO BMF extract');
    // In words, not errno codes (were ENOENT and EISDIR).
    const missing = await cli('charities', 'import', join(dir, 'nope.csv'));
    expect(missing.code).toBe(2);
    expect(missing.stderr).toBe(`error: cannot read ${join(dir, 'nope.csv')}: no such file\n`);
    const directory = await cli('charities', 'import', craFile, dir);
    expect(directory.code).toBe(2);
    expect(directory.stderr).toBe(`error: cannot read ${dir}: is a directory\n`);
    const none = await cli('charities', 'import');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('usage: payments charities import <file>...');
  }, 60_000);
});

describe('describeFileError', () => {
  // Permission cannot be taken away from a test running as root: the mapping itself.
  it('says the common errno codes in words and keeps an unknown code as it is', () => {
    const err = (code: string) => Object.assign(new Error(code), { code });
    expect(describeFileError(err('ENOENT'))).toBe('no such file');
    expect(describeFileError(err('EISDIR'))).toBe('is a directory');
    expect(describeFileError(err('EACCES'))).toBe('permission denied');
    expect(describeFileError(err('EPERM'))).toBe('permission denied');
    expect(describeFileError(err('ENOTDIR'))).toBe('a part of the path is not a directory');
    expect(describeFileError(err('EWEIRD'))).toBe('EWEIRD');
  });
});
