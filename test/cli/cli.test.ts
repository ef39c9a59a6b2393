import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/platform/database/database.ts';
import { lockDataDir } from '../../src/platform/data-dir-lock.ts';
import { testDatabaseUrl } from '../helpers/database-url.ts';
import { runCliProcess, runServiceExpectingExit, startService } from '../helpers/process.ts';
import { processStore } from '../helpers/store.ts';

/** The CLI against this run's kind of store: a temporary embedded data directory, or a fresh PostgreSQL database. */
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ env, cleanup } = await processStore('cli'));
});
afterAll(() => cleanup());

const cli = (...args: string[]) => runCliProcess(args, env);

// Each command is a process that opens the store (PGlite: a second or more): generous time limits.
describe('operator CLI', { timeout: 180_000 }, () => {
  let clientId: string;

  it('creates a partner and prints its ClientId, ClientSecret and ApiKey once', async () => {
    const res = await cli('partner', 'create', '--name', 'Riverside Shelter', '--kind', 'non-profit');
    // The first command on an embedded data directory makes its database, and says so.
    expect(res.stderr).toBe(testDatabaseUrl() ? '' : `note: no database in ${env.DATA_DIR} yet: a new one is created there (set DATA_DIR to use another)\n`);
    expect(res.code).toBe(0);
    const id = /ClientId:\s+([0-9a-f-]{36})/.exec(res.stdout)?.[1];
    const secret = /ClientSecret:\s+(\S{43})/.exec(res.stdout)?.[1];
    const key = /ApiKey:\s+(\S{43})/.exec(res.stdout)?.[1];
    expect(id && secret && key).toBeTruthy();
    clientId = id!;

    const list = await cli('partner', 'list');
    expect(list.stdout).toContain(clientId);
    expect(list.stdout).toContain('Riverside Shelter');
    expect(list.stdout).not.toContain(secret!);

    // The database holds a hash, never the secret.
    const store = await openStore({ ...{ dataDir: env.DATA_DIR!, databasePoolSize: 2 }, databaseUrl: env.DATABASE_URL });
    try {
      const rows = await store.sql.query<{ client_secret_hash: string; api_key_hash: string }>(
        'SELECT client_secret_hash, api_key_hash FROM partners WHERE id = $1',
        [clientId],
      );
      expect(rows[0]!.client_secret_hash).toMatch(/^scrypt\$/);
      expect(JSON.stringify(rows)).not.toContain(secret!);
      expect(JSON.stringify(rows)).not.toContain(key!);
    } finally {
      await store.close();
    }
  });

  it('creates integration sources, processors and organizations, and sets and shows a contract', async () => {
    expect((await cli('integration-source', 'create', clientId, '--name', 'Website')).code).toBe(0);
    const proc = await cli('processor', 'create', clientId, '--name', 'Sim', '--mkey', 'mk-1', '--types', '1,2,3,7', '--json');
    expect(JSON.parse(proc.stdout).ProcessorGuid).toMatch(/^[0-9a-f-]{36}$/);
    expect((await cli('organization', 'create', clientId, '--name', 'Shelter')).code).toBe(0);
    const set = await cli('contract', 'set', clientId, '--group', '1', '--card-rate', '2.9', '--platform-rate', '1', '--max-rate', '5',
      '--per-trans', '0.30', '--ach-rate', '0.8', '--ach-cap', '5.00', '--card-type-fee', 'AMEX=0.15');
    expect(set.stderr).toBe('');
    const show = await cli('contract', 'show', clientId);
    expect(show.stdout).toContain('group 1 (Donation Fee):  card 2.9%  platform 1%  max commission 5%  per transaction 0.30  ACH 0.8% capped at 5.00  card type fees AMEX=0.15');
    const partner = await cli('partner', 'show', clientId);
    expect(partner.stdout).toMatch(/Website\s+duplicate check on\s+\(default\)/);
    expect(partner.stdout).toMatch(/MKey mk-1\s+types 1,2,3,7/);

    // What payments could never use is refused (an operator audit found both taken).
    const group12 = await cli('contract', 'set', clientId, '--group', '12', '--card-rate', '2.9', '--platform-rate', '0', '--max-rate', '0', '--per-trans', '0.30', '--ach-rate', '0.8', '--ach-cap', '5.00');
    expect(group12.code).toBe(2);
    expect(group12.stderr).toMatch(/^error: group 12 is for for-profit partners/);
    const unknownCharity = await cli('organization', 'create', clientId, '--name', 'Elsewhere', '--charity-id', '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a');
    expect(unknownCharity.code).toBe(2);
    expect(unknownCharity.stderr).toMatch(/^error: no charity 0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a in the directory/);
  });

  it('rotates a secret', async () => {
    const res = await cli('partner', 'rotate-secret', clientId, '--json');
    expect(JSON.parse(res.stdout).ClientSecret).toHaveLength(43);
  });

  it('refuses bad arguments with a clear message and a non-zero exit', async () => {
    const cases: [string[], RegExp][] = [
      [['partner', 'create', '--name', 'X'], /--kind is required/],
      [['partner', 'create', '--name', 'X', '--kind', 'charity'], /kind must be one of non-profit, for-profit/],
      [['partner', 'create', '--nme', 'X'], /Unknown option '--nme'/],
      [['contract', 'set', clientId, '--group', '13', '--card-rate', '1', '--platform-rate', '1', '--max-rate', '2'], /--group must be/],
      [['contract', 'set', clientId, '--group', '1', '--card-rate', 'abc', '--platform-rate', '1', '--max-rate', '2'], /--card-rate must be a percentage/],
      [['contract', 'set', clientId, '--group', '1', '--card-rate', '2', '--platform-rate', '6', '--max-rate', '5'], /must not exceed the maximum/],
      [['partner', 'show', 'not-a-uuid'], /is not a ClientId/],
      [['frobnicate'], /^error: unknown command: frobnicate/],
      // An argument a command does not take, and a --types that is not numbers (operator audit).
      [['partner', 'show', clientId, 'extra'], /^error: unexpected argument "extra"/],
      [['processor', 'create', clientId, '--name', 'P', '--types', '1,abc'], /^error: --types takes payment method types 1-10 separated by commas, got "abc"/],
    ];
    for (const [args, message] of cases) {
      const res = await cli(...args);
      expect(res.code, args.join(' ')).not.toBe(0);
      expect(res.stderr, args.join(' ')).toMatch(message);
    }
    const missing = await cli('partner', 'show', '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a');
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no partner with ClientId/);
  });
});

describe.runIf(!testDatabaseUrl())('embedded data directory lock', { timeout: 180_000 }, () => {
  it('makes the CLI refuse while another process holds the data directory, and the server too', async () => {
    const lock = lockDataDir(env.DATA_DIR!, 'test holding the lock');
    try {
      const res = await cli('partner', 'list');
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/is in use by process \d+ \(test holding the lock\)/);
      // A copy made while its server ran keeps the lock: the message names the file to remove.
      expect(res.stderr).toContain(`remove ${join(env.DATA_DIR!, 'payments.lock')}`);
      const server = await runServiceExpectingExit({ DATA_DIR: env.DATA_DIR });
      expect(server.code).toBe(2);
      expect(server.output).toMatch(/is in use by process/);
    } finally {
      lock.release();
    }
    expect((await cli('partner', 'list')).code).toBe(0);
  });

  it('is released by a server whose start fails (an unreadable TLS file)', async () => {
    const failed = await runServiceExpectingExit({ DATA_DIR: env.DATA_DIR, TLS_CERT_FILE: '/nonexistent/cert.pem', TLS_KEY_FILE: '/nonexistent/key.pem' });
    expect(failed.code).not.toBe(0);
    // Refused after taking the lock (TLS files are read when the server is built).
    expect(failed.output).toMatch(/The service could not start/);
    expect(existsSync(join(env.DATA_DIR!, 'payments.lock'))).toBe(false);
  });

  it('says so when DATA_DIR holds no database yet (a mistyped DATA_DIR would answer from a new, empty one)', async () => {
    const fresh = mkdtempSync(join(tmpdir(), 'payments-cli-fresh-'));
    try {
      const first = await runCliProcess(['partner', 'list'], { DATA_DIR: join(fresh, 'data-typo') });
      expect(first.code).toBe(0);
      expect(first.stderr).toContain(`note: no database in ${join(fresh, 'data-typo')} yet: a new one is created there`);
      const second = await runCliProcess(['partner', 'list'], { DATA_DIR: join(fresh, 'data-typo') });
      expect(second.stderr).toBe('');
    } finally {
      rmSync(fresh, { recursive: true, force: true });
    }
  });
});

describe('a data directory and its database', { timeout: 180_000 }, () => {
  it("refuses a command on a server's data directory with another database than the server's", async () => {
    const store = await processStore('cli-database');
    try {
      const server = await startService({ ...store.env, DEMO: 'off' });
      expect(await server.stop()).toBe(0);
      // The other database: the embedded one when the server used PostgreSQL, and the reverse.
      const other = store.env.DATABASE_URL ? { DATABASE_URL: '' } : { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/postgres' };
      const res = await runCliProcess(['partner', 'list'], { ...store.env, ...other });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/^error: the server of .+ uses (PostgreSQL 127\.0\.0\.1:\d+\/\w+|embedded PGlite), and this command would use (embedded PGlite|PostgreSQL 127\.0\.0\.1:5432\/postgres): set DATABASE_URL/);
      expect(res.stdout).toBe('');
      const same = await runCliProcess(['partner', 'list'], store.env);
      expect(same.code).toBe(0);
    } finally {
      await store.cleanup();
    }
  });
});
