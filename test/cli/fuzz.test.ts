import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type Command, UsageError } from '../../src/cli/command.ts';
import { commands } from '../../src/cli/commands/index.ts';
import { runCli } from '../../src/cli/main.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import type { SaleResult } from '../../src/processors/processor.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices } from '../../src/composition.ts';
import { NotFoundError, ValidationError } from '../../src/platform/errors.ts';
import { OperatorInputError } from '../../src/platform/errors.ts';
import { SAMPLE_DIR } from '../../src/modules/charities/import-samples.ts';
import { DataDirLockedError } from '../../src/platform/data-dir-lock.ts';
import { openPglite, openPostgres, type Store } from '../../src/platform/database/database.ts';
import { cardPaymentInput, seedTestPartner, type TestPartner } from '../helpers/context.ts';
import { testDatabaseUrl } from '../helpers/database-url.ts';
import { FUZZ_SCALE } from '../helpers/fuzz.ts';
import { freshDatabase } from '../helpers/store.ts';
import { inject } from 'vitest';
import { readFileSync as realReadFileSync } from 'node:fs';
import { testLogger } from '../helpers/logger.ts';

/**
 * Generative robustness tests of the operator CLI (`npx payments <command> ...`). Every command of
 * the command table gets argument lists that mix its real options and positionals with odd ones
 * (unknown flags, missing values, repeated flags, `--flag=value` and `--flag value`, empty, huge,
 * unicode, control characters, NUL, -1/1e400/NaN, malformed GUIDs, files that do not exist), and
 * random words go to the dispatcher. Whatever the arguments, the contract of an operator tool holds:
 * - runCli resolves with an exit code (no uncaught exception) and no stack trace is printed;
 * - success: exit 0 (`pending list`: 0 or 3) and nothing on stderr; with --json, stdout is one JSON document;
 * - refusal: a non-zero exit and a clear `error: ...` line on stderr (plus the usage hint), raised as
 *   one of the CLI's own error types (never a TypeError or a database error passed through);
 * - no secret the system holds (ClientSecret, ApiKey, gateway password, card or account number,
 *   a password given on stdin) appears on stdout or stderr;
 * - a refused command changes nothing in the database (row counts and contents of the main tables).
 *
 * The CLI runs in-process (a process per run would take a second or more on PGlite): `openStore`
 * is replaced by one shared store that the CLI cannot close, stderr is captured, and standard input
 * (`--password-stdin`) is a string the property chooses. fast-check prints the seed and the shrunk
 * counterexample of a failure; replay it with `{ seed, path }` in the property's parameters.
 */

const RUNS = { perCommand: Math.round(25 * FUZZ_SCALE), words: Math.round(60 * FUZZ_SCALE) };

const hoisted = vi.hoisted(() => ({ store: undefined as unknown, stdin: '' }));

vi.mock('../../src/platform/database/database.ts', async (importOriginal) => {
  const mod = await importOriginal<typeof import('../../src/platform/database/database.ts')>();
  // The CLI closes the store it opened after every command: give it a handle whose close does nothing.
  return { ...mod, openStore: async () => ({ ...(hoisted.store as Store), close: async () => {} }) };
});

vi.mock('node:fs', async (importOriginal) => {
  const mod = await importOriginal<typeof import('node:fs')>();
  // `--password-stdin` reads file descriptor 0: the property's string instead of the test runner's stdin.
  const readFileSync = ((path: unknown, ...rest: unknown[]) =>
    path === 0 ? hoisted.stdin : (mod.readFileSync as (...a: unknown[]) => unknown)(path, ...rest)) as typeof mod.readFileSync;
  return { ...mod, default: { ...mod, readFileSync }, readFileSync };
});

// ---------------------------------------------------------------------------------------------
// The store, the seeded data and its secrets

let store: Store;
let dir: string;
let dropDatabase: (() => Promise<void>) | undefined;
const savedEnv = { DATA_DIR: process.env.DATA_DIR, DATABASE_URL: process.env.DATABASE_URL, VAULT_KEY: process.env.VAULT_KEY };

let partner: TestPartner;
let paymentGuid: string;
let strandedGuid: string;
const USERNAME = 'fuzz.operator';
const GATEWAY_PASSWORD = 'Gw-Pa55word-Fuzz-0123456789';
const CARD = '4242424242424242';
const ACCOUNT = '000987654321';
/** Every secret the system holds: none may reach the CLI's output. */
const secrets: string[] = [];

const files: Record<'missing' | 'directory' | 'empty' | 'garbage' | 'binary' | 'cra', string> = {} as never;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'payments-cli-fuzz-'));
  const url = testDatabaseUrl();
  if (url) {
    const db = await freshDatabase(url);
    store = openPostgres(db.url, 4);
    dropDatabase = db.drop;
    // The charity import opens its own connection from DATABASE_URL: this file's database.
    process.env.DATABASE_URL = db.url;
  } else {
    store = await openPglite({ loadDataDir: new Blob([realReadFileSync(inject('pgliteTemplate'))]) });
    delete process.env.DATABASE_URL;
  }
  hoisted.store = store;
  process.env.DATA_DIR = join(dir, 'data');
  delete process.env.VAULT_KEY;
  mkdirSync(process.env.DATA_DIR, { recursive: true });
  // The CLI's store is this file's (mocked openStore): the directory only stops its "no database yet" note.
  mkdirSync(join(process.env.DATA_DIR, 'pglite'), { recursive: true });

  // Seeded with the CLI's own configuration, so that the vault key file is the one the CLI reads.
  const services = createServices({ log: testLogger(), store, clock: new ManualClock('2026-01-10T08:00:00.000Z'), ids: cryptoIds, config: loadConfig() });
  partner = await seedTestPartner(services, 'Fuzz CLI partner', 'non-profit');
  const auth = { id: partner.ClientId, name: partner.name, kind: partner.kind };
  paymentGuid = (await services.payments.payCard(auth, cardPaymentInput(2500, { tokenize: true }))).payment.id;
  await services.tokens.tokenizeBankAccount(partner.ClientId, { routingNumber: '110000000', accountNumber: ACCOUNT, accountType: 1, nameOnAccount: 'Ada Lovelace', source: 'api' });
  await services.gatewayUsers.create({ partnerId: partner.ClientId, username: USERNAME, vendor: 'fuzzvendor', password: GATEWAY_PASSWORD });
  strandedGuid = await strandedPayment('cli-fuzz-stranded');
  secrets.push(partner.ClientSecret, partner.ApiKey, GATEWAY_PASSWORD, CARD, ACCOUNT);

  files.missing = join(dir, 'no-such-dir', 'eo_xx.csv');
  files.directory = dir;
  files.empty = join(dir, 'empty.csv');
  writeFileSync(files.empty, '');
  files.garbage = join(dir, 'donors.csv');
  writeFileSync(files.garbage, 'id,name\n1,x\n');
  files.binary = join(dir, 'binary.csv');
  writeFileSync(files.binary, Buffer.from([0, 255, 254, 0, 10, 13, 0, 1, 2]));
  files.cra = join(SAMPLE_DIR, 'cra-charities-listing-sample.txt');

  // Remember what each command threw, to tell the CLI's own refusals from errors passed through.
  for (const command of commands) {
    const run = command.run;
    command.run = async function (ctx, args) {
      try {
        return await run.call(this, ctx, args);
      } catch (err) {
        lastThrown = err;
        throw err;
      }
    };
  }
}, 120_000);

/** A payment left Pending (its processor never answered), for `pending list` and `pending resolve` to find. */
async function strandedPayment(tranId: string): Promise<string> {
  const services = createServices({ log: testLogger(), store, clock: new ManualClock('2026-01-10T09:00:00.000Z'), ids: cryptoIds, config: loadConfig() });
  let asked!: () => void;
  const processorAsked = new Promise<void>((r) => (asked = r));
  services.processorAdapters.get('simulator').sale = () => {
    asked();
    return new Promise<SaleResult>(() => {});
  };
  // The fuzzed `contract remove` runs may have removed group 1's schedule: the payment needs one.
  await services.partners.setSchedule(partner.ClientId, {
    groupId: 1, cardFeeRate: '2.9', platformCommissionRate: '1', maxCommissionRate: '5', perTransFeeCents: 30,
    cardTypeFeesCents: {}, achFeeRate: '0.8', achFeeCapCents: null,
  });
  // A payment refused before the processor is asked fails the test at once (not a hang until the timeout).
  const refused = services.payments.payCard({ id: partner.ClientId, name: partner.name, kind: partner.kind }, cardPaymentInput(1500, { tranId })).then(() => {
    throw new Error('the stranded payment was answered');
  });
  await Promise.race([processorAsked, refused]);
  const [row] = await store.sql.query<{ id: string }>('SELECT id FROM payments WHERE tran_id = $1', [tranId]);
  return row!.id;
}

afterAll(async () => {
  await store?.close();
  await dropDatabase?.();
  for (const [k, v] of Object.entries(savedEnv)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// ---------------------------------------------------------------------------------------------
// Running the CLI in-process

let lastThrown: unknown;

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
  thrown: unknown;
}

async function cli(argv: string[], stdin = ''): Promise<CliRun> {
  const out: string[] = [];
  let stderr = '';
  hoisted.stdin = stdin;
  lastThrown = undefined;
  const spy = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: unknown) => {
    stderr += String(chunk);
    return true;
  });
  let code: number;
  try {
    // A command that runs until told (notifications deliver --follow) is told after a moment.
    code = await runCli(
      argv,
      (line) => {
        out.push(line);
      },
      AbortSignal.timeout(300),
    );
  } finally {
    spy.mockRestore();
  }
  return { code, stdout: out.join('\n'), stderr, thrown: lastThrown };
}

const TABLES = ['partners', 'processors', 'organizations', 'integration_sources', 'fee_schedules', 'payments', 'payment_tokens', 'gateway_users', 'charities'];

/** Row count and a digest of the contents of each main table. */
async function snapshot(): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const table of TABLES) {
    const [row] = await store.sql.query<{ n: number; h: string | null }>(
      `SELECT count(*)::int AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS h FROM ${table} t`,
    );
    result[table] = `${row!.n} rows ${row!.h ?? '-'}`;
  }
  return result;
}

/** The errors a command refuses with: the CLI's own, and the services' typed ones. */
const EXPECTED_ERRORS = [UsageError, OperatorInputError, ConfigError, DataDirLockedError, NotFoundError, ValidationError];
/** Failures reported after the work was done (the command did what it could): plain Errors by design. */
const REPORTED_AFTER_WORK = /^\d+ (profile\(s\) could not be billed|token\(s\) could not be re-encrypted)/;

const STACK = /^\s+at .+(\(|:\d+:\d+)/m;
const INTERNAL = /TypeError|RangeError|ReferenceError|SyntaxError|Failed query|\[object Object\]|is not a function|Cannot read properties|invalid input syntax|violates|out of range for type|invalid byte sequence/;

/** The contract; returns nothing, fails with the run in the message. */
function checkContract(argv: string[], res: CliRun, before: Record<string, string>, after: Record<string, string>, stdinPassword: string | undefined) {
  const show = `argv ${JSON.stringify(argv)}\nexit ${res.code}\nstdout ${JSON.stringify(res.stdout.slice(0, 2000))}\nstderr ${JSON.stringify(res.stderr.slice(0, 2000))}\nthrown ${res.thrown instanceof Error ? `${res.thrown.constructor.name}: ${res.thrown.message.slice(0, 500)}` : String(res.thrown)}`;
  expect(Number.isInteger(res.code), show).toBe(true);
  expect([0, 1, 2, 3], show).toContain(res.code);
  const output = res.stdout + '\n' + res.stderr;
  expect(STACK.test(output), `stack trace printed\n${show}`).toBe(false);

  // Secrets: those the system holds, and a password given on standard input.
  for (const secret of [...secrets, ...(stdinPassword ? [stdinPassword] : [])]) {
    if (secret && !argv.some((a) => a.includes(secret))) expect(output.includes(secret), `secret echoed: ${secret}\n${show}`).toBe(false);
  }

  const command = commands.find((c) => argv.slice(0, c.name.split(' ').length).join(' ') === c.name);
  const success = res.code === 0 || (res.code === 3 && command?.name === 'pending list' && res.stderr === '');
  if (success) {
    expect(res.stderr, show).toBe('');
    const parsedJson = argv.includes('--json') && !argv.slice(0, argv.indexOf('--json')).includes('--');
    if (parsedJson && command) expect(() => JSON.parse(res.stdout), `--json output is not JSON\n${show}`).not.toThrow();
    return;
  }
  // Refused (or failed).
  if (argv.length === 0) {
    // `payments` alone prints the help and exits 2.
    expect(res.stdout, show).toMatch(/^usage: payments <command>/);
    return;
  }
  expect(res.stderr, show).toMatch(/^error: /);
  // Values the operator typed may carry line breaks of their own: leave them out of the line check.
  let text = res.stderr;
  for (const a of argv.flatMap((a) => [a, a.replace(/^--[^=]*=/s, '')])) if (/[\r\n\u2028\u2029]/.test(a)) text = text.split(a).join('<arg>');
  const [first, ...rest] = text.replace(/\n$/, '').split('\n');
  expect(first!.trim().length, show).toBeGreaterThan(7);
  expect(INTERNAL.test(first!), `internal error passed through\n${show}`).toBe(false);
  // An unknown or incomplete command is followed by the list of commands (all, or its group's).
  if (!/^error: (unknown command:|payments \S+ needs a command$)/.test(first!)) {
    for (const line of rest) {
      expect(line, `unexpected extra line on stderr\n${show}`).toMatch(
        /^(usage: payments |Did you forget to specify the option argument|To specify an option argument starting with a dash|$)/,
      );
    }
  }
  const thrown = res.thrown;
  if (thrown !== undefined) {
    const expected = EXPECTED_ERRORS.some((E) => thrown instanceof E) || (thrown instanceof Error && REPORTED_AFTER_WORK.test(thrown.message));
    expect(expected, `not one of the CLI's refusals\n${show}`).toBe(true);
  }
  if (!(thrown instanceof Error && REPORTED_AFTER_WORK.test(thrown.message))) {
    expect(after, `a refused command changed the database\n${show}`).toEqual(before);
  }
}

/**
 * Standard input's first line, a password the CLI may read, as the secret check takes it: of 8
 * characters or more (shorter ones are in any text), and not when the CLI prints it whatever
 * standard input holds (fast-check's strings include words such as "arguments", and "argument"
 * is in a usage error): then the same command is run again with nothing on standard input.
 */
async function stdinSecret(argv: string[], stdin: string, res: CliRun): Promise<string | undefined> {
  const line = stdin.split(/\r?\n/)[0]!;
  if (line.length < 8) return undefined;
  if (!(res.stdout + '\n' + res.stderr).includes(line)) return line;
  const again = await cli(argv, '');
  return (again.stdout + '\n' + again.stderr).includes(line) ? undefined : line;
}

async function runAndCheck(argv: string[], stdin = '') {
  const before = await snapshot();
  const res = await cli(argv, stdin);
  const after = await snapshot();
  checkContract(argv, res, before, after, await stdinSecret(argv, stdin, res));
  return res;
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

const GUID = '0b7e7f9e-3a55-4c0a-9a8e-6f1f1d2c3b4a';

/** Odd values for any option or positional. */
const oddValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '', ' ', '-', '--', '-1', '0', '1e400', '-1e400', 'NaN', 'Infinity', '0x10', '1.5', ' 7 ', '99999999999999999999', '9007199254740993', '00',
    'a\u0000b', '\u0000', 'line\nbreak', '\r\n', '\u001b[31mred', '\u0007\u0008', 'naïve 名前 😀', '\u202eevil', '\ud800', "'; DROP TABLE partners; --",
    '%s%d', '${HOME}', 'null', 'undefined', 'true', '[]', '{}', '__proto__', 'constructor',
    // malformed GUIDs
    GUID.slice(0, -1), GUID + '0', GUID.toUpperCase(), `{${GUID}}`, GUID.replace(/-/g, ''), GUID + '\u0000', ` ${GUID}`, '00000000-0000-0000-0000-000000000000', 'zzzzzzzz-zzzz-zzzz-zzzz-zzzzzzzzzzzz',
  ),
  fc.constantFrom('x'.repeat(5000), '9'.repeat(400), 'é'.repeat(3000)),
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.integer().map(String),
  fc.double().map(String),
);

/** A value an option of this name would accept (for the real options of the commands). */
function goodValue(option: string, command: string): fc.Arbitrary<string> {
  switch (option) {
    case 'name': return fc.constantFrom('Fuzz Org', 'Shelter', ' padded ');
    case 'kind': return fc.constantFrom('non-profit', 'for-profit');
    case 'group': return fc.integer({ min: 1, max: 12 }).map(String);
    case 'card-rate': case 'platform-rate': case 'max-rate': case 'ach-rate': return fc.constantFrom('0', '1', '2.9', '5', '99.9999');
    case 'per-trans': case 'ach-cap': return fc.constantFrom('0.30', '5.00', '0', 'none');
    case 'card-type-fee': return fc.constantFrom('AMEX=0.15', 'visa=0.10', 'JCB=0');
    case 'mkey': return fc.constantFrom('mk-fuzz', 'mk-2');
    case 'types': return fc.constantFrom('1,2,3,7', '1', '10', '1,1,1');
    case 'charity-id': return fc.constantFrom(GUID);
    case 'username': return fc.constantFrom('fuzz_user', 'op@example.org', USERNAME);
    case 'vendor': return fc.constantFrom('vendorA', 'v.1');
    case 'as-of': return command === 'settle' ? fc.constantFrom('2026-01-01T00:00:00Z', '2026-11-21 02:00') : fc.constantFrom('2026-01-01', '2024-02-29');
    case 'batch-size': return fc.constantFrom('1', '100', '50000');
    case 'concurrency': return fc.constantFrom('1', '8');
    case 'older-than': return fc.constantFrom('0', '60', '999999');
    case 'transaction-id': return fc.constantFrom('tx-fuzz-1');
    case 'auth-code': return fc.constantFrom('A1B2');
    default: return fc.constant('x');
  }
}

/** Positionals the commands take: the seeded ids and names, files, malformed ones. */
const positional = (): fc.Arbitrary<string> =>
  fc.oneof(
    fc.constantFrom(partner.ClientId, partner.ClientId.toUpperCase(), paymentGuid, strandedGuid, USERNAME, GUID),
    fc.constantFrom(files.missing, files.directory, files.empty, files.garbage, files.binary, files.cra, '/dev/null', '/nonexistent\u0000.csv', '.', ''),
    oddValue,
  );

type Piece = string[];

function pieces(command: Command): fc.Arbitrary<Piece> {
  const options = Object.entries(command.options ?? {});
  const real: fc.Arbitrary<Piece>[] = options.flatMap(([name, spec]) =>
    spec.type === 'boolean'
      ? [fc.constant([`--${name}`]), fc.constantFrom([`--${name}=yes`], [`--${name}=`], [`--${name.toUpperCase()}`])]
      : [
          goodValue(name, command.name).map((v) => [`--${name}`, v]),
          goodValue(name, command.name).map((v) => [`--${name}=${v}`]),
          oddValue.map((v) => [`--${name}`, v]),
          oddValue.map((v) => [`--${name}=${v}`]),
          fc.constant([`--${name}`]), // missing value (or the next piece becomes it)
        ],
  );
  return fc.oneof(
    { weight: 6, arbitrary: real.length ? fc.oneof(...real) : positional().map((p) => [p]) },
    { weight: 3, arbitrary: positional().map((p) => [p]) },
    { weight: 1, arbitrary: fc.constantFrom<Piece>(['--json'], ['--json=1'], ['--frobnicate'], ['-x'], ['-'], ['--'], ['--no-json'], ['--help'], ['-h']) },
    { weight: 1, arbitrary: fc.string({ minLength: 1, maxLength: 12 }).map((w) => [`--${w}`]) },
  );
}

/** A valid invocation of each command (after its words), to mutate a little: most of these succeed. */
function validArgs(name: string, nonce: string): string[] {
  const id = partner.ClientId;
  switch (name) {
    case 'partner create': return ['--name', `Fuzz ${nonce}`, '--kind', 'non-profit'];
    case 'partner show': case 'partner rotate-secret': case 'partner rotate-api-key': case 'contract show': case 'gateway-user list': return [id];
    case 'integration-source create': return [id, '--name', 'Web', '--no-duplicate-check'];
    case 'processor create': return [id, '--name', 'Sim', '--mkey', `mk-${nonce}`, '--types', '1,2,3'];
    case 'organization create': return [id, '--name', 'Org', '--charity-id', GUID];
    case 'contract set': return [id, '--group', '2', '--card-rate', '2.9', '--platform-rate', '1', '--max-rate', '5', '--per-trans', '0.30', '--ach-rate', '0.8', '--ach-cap', '5.00', '--card-type-fee', 'AMEX=0.15'];
    case 'contract remove': return [id, '--group', '3'];
    case 'gateway-user create': return [id, '--username', `u_${nonce}`, '--vendor', 'vendorA'];
    case 'gateway-user disable': case 'gateway-user enable': case 'gateway-user reset-password': return [USERNAME];
    case 'settle': return ['--as-of', '2026-01-01T00:00:00Z'];
    case 'pending list': return ['--older-than', '60'];
    case 'pending resolve': return [strandedGuid, '--not-processed'];
    case 'charities import': return [files.cra, '--batch-size', '100'];
    case 'billing run': return ['--as-of', '2026-01-01', '--batch-size', '10', '--concurrency', '2'];
    case 'billing status': return ['--as-of', '2026-01-01'];
    default: return [];
  }
}

type Mutation = { op: 'replace' | 'delete' | 'insert' | 'duplicate' | 'join' | 'split'; at: number; value: string; piece: Piece };

function mutate(args: string[], m: Mutation): string[] {
  const out = [...args];
  const i = out.length ? m.at % out.length : 0;
  switch (m.op) {
    case 'replace': if (out.length) out[i] = m.value; else out.push(m.value); break;
    case 'delete': out.splice(i, 1); break;
    case 'insert': out.splice(m.at % (out.length + 1), 0, ...m.piece); break;
    case 'duplicate': out.splice(i, 0, ...out.slice(i, i + 2)); break;
    // `--flag value` -> `--flag=value`, and back
    case 'join': if (out[i]?.startsWith('--') && i + 1 < out.length) out.splice(i, 2, `${out[i]}=${out[i + 1]}`); break;
    case 'split': if (out[i]?.includes('=')) out.splice(i, 1, ...out[i]!.split(/=(.*)/s).slice(0, 2)); break;
  }
  return out;
}

/** The command's words, then a valid invocation with a few mutations or random pieces; stdin for --password-stdin. */
function argvFor(command: Command): fc.Arbitrary<{ argv: string[]; stdin: string }> {
  const mutation: fc.Arbitrary<Mutation> = fc.record({
    op: fc.constantFrom('replace', 'delete', 'insert', 'insert', 'duplicate', 'join', 'split'),
    at: fc.nat(30),
    value: oddValue,
    piece: pieces(command),
  });
  const mutated = fc
    .tuple(fc.stringMatching(/^[a-z0-9]{6}$/), fc.array(mutation, { maxLength: 3 }))
    .map(([nonce, ms]) => ms.reduce(mutate, validArgs(command.name, nonce)));
  const random = fc.array(pieces(command), { maxLength: 7 }).map((ps) => ps.flat());
  return fc.record({
    argv: fc
      .tuple(fc.oneof({ weight: 2, arbitrary: mutated }, { weight: 1, arbitrary: random }), fc.boolean())
      .map(([args, json]) => [...command.name.split(' '), ...args, ...(json ? ['--json'] : [])]),
    stdin: fc.oneof(fc.constant(''), fc.constant('\n'), fc.constant('short'), fc.constantFrom('Stdin-Pa55word-0123', 'Stdin-Pa55word-0123\nsecond line', 'p'.repeat(300)), fc.string({ maxLength: 40 })),
  });
}

// ---------------------------------------------------------------------------------------------
// Properties

describe('operator CLI: generated argument lists keep the contract', { timeout: 120_000 }, () => {
  it('covers every command of the command table', () => {
    expect(commands.length).toBeGreaterThanOrEqual(20);
  });

  for (const command of commands) {
    it(`payments ${command.name} ...`, async () => {
      await fc.assert(
        fc.asyncProperty(argvFor(command), async ({ argv, stdin }) => {
          await runAndCheck(argv, stdin);
        }),
        { numRuns: RUNS.perCommand },
      );
    });
  }

  it('random words and command words at the dispatcher', async () => {
    const words = [...new Set(commands.flatMap((c) => c.name.split(' ')))];
    const word = fc.oneof(fc.constantFrom(...words, 'help', '--help', '-h', '--json', 'create', 'list', 'PARTNER'), oddValue, fc.string({ maxLength: 12 }));
    await fc.assert(
      fc.asyncProperty(fc.array(word, { maxLength: 5 }), async (argv) => {
        await runAndCheck(argv);
      }),
      { numRuns: RUNS.words },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Regressions found by the properties above (minimised)

describe('operator CLI: regressions', () => {
  /** A refusal: exit 2, one `error:` line (plus the usage hint), no SQL, nothing changed. */
  async function expectRefused(argv: string[], message: RegExp) {
    const before = await snapshot();
    const res = await cli(argv);
    expect(await snapshot()).toEqual(before);
    expect(res.stderr).not.toMatch(/Failed query|params:|password_hash/);
    expect(res.stderr).toMatch(message);
    expect(res.code).toBe(2);
    expect(res.thrown === undefined || EXPECTED_ERRORS.some((E) => res.thrown instanceof E)).toBe(true);
  }

  it('notifications deliver --follow runs until it is told to stop, then ends with 0', async () => {
    // cli() gives every run a stop signal that fires after 300 ms.
    const started = performance.now();
    const res = await cli(['notifications', 'deliver', '--follow']);
    expect(res.code, res.stderr).toBe(0);
    expect(res.stdout).toContain('Delivering notifications until SIGTERM or SIGINT.');
    expect(performance.now() - started).toBeGreaterThanOrEqual(250);
  });

  it('contract remove refuses a clientId that is not a UUID instead of printing the failed SQL', async () => {
    // Was: exit 1, "error: Failed query: delete from "fee_schedules" where ... params: not-a-uuid,1".
    await expectRefused(['contract', 'remove', 'not-a-uuid', '--group', '1'], /^error: "not-a-uuid" is not a ClientId/);
  });

  it('contract remove refuses a --group that is not 1-12 instead of sending NaN to the database', async () => {
    // Was: exit 1, "error: Failed query: delete ... params: <clientId>,NaN".
    await expectRefused(['contract', 'remove', partner.ClientId, '--group', 'x'], /^error: --group must be a TransactionSourceGroupId from 1 to 12, got "x"/);
    await expectRefused(['contract', 'remove', partner.ClientId, '--group', '99999999999'], /^error: --group must be/);
  });

  it('gateway-user list refuses a clientId that is not a UUID instead of printing the failed SQL', async () => {
    // Was: exit 1, "error: Failed query: select "gateway_users"."id", ... "password_hash" ... params: nope".
    await expectRefused(['gateway-user', 'list', 'nope'], /^error: "nope" is not a ClientId/);
  });

  it('refuses a NUL character in any argument (the database cannot store it)', async () => {
    // Was: exit 1, "error: Failed query: select ... where lower("gateway_users"."username") = lower($1) params: a\0b".
    // (A real argv cannot hold NUL; the in-process runner and embedding callers can.)
    await expectRefused(['gateway-user', 'disable', 'a\u0000b'], /^error: arguments cannot contain NUL characters/);
    await expectRefused(['partner', 'create', '--name', 'a\u0000b', '--kind', 'non-profit'], /^error: arguments cannot contain NUL characters/);
  });

  it('gateway-user create refuses a clientId that is not a UUID instead of passing the database error through', async () => {
    // Was: exit 1, "error: Failed query: select "id", "name" from "partners" where "partners"."id" = $1 params: nope"
    // (one line since the fix in main.ts: "error: invalid input syntax for type uuid: "nope"").
    await expectRefused(['gateway-user', 'create', 'nope', '--username', 'fuzz_new', '--vendor', 'v1'], /^error: "nope" is not a ClientId/);
  });

  it('processor create refuses an MKey the partner already uses, as the operator\'s mistake', async () => {
    expect((await cli(['processor', 'create', partner.ClientId, '--name', 'Sim', '--mkey', 'mk-twice'])).code).toBe(0);
    // Was: exit 1, "error: Failed query: insert into "processors" ... params: ..." (later: "duplicate key value violates unique constraint").
    await expectRefused(['processor', 'create', partner.ClientId, '--name', 'Sim 2', '--mkey', ' mk-twice '], /^error: --mkey "mk-twice" is already the MKey of another processor/);
  });

  // Was: `payments pending resolve <PaymentGuid> ... --force` always failed, on PostgreSQL and
  // PGlite, with "error: time zone displacement out of range: "+275760-09-13T00:00:00.000Z""
  // (src/modules/payments/held-outcome-service.ts sent new Date(8.64e15) as the age limit).
  it('pending resolve --force records the outcome of a pending payment', async () => {
    const guid = await strandedPayment('cli-fuzz-force');
    const res = await cli(['pending', 'resolve', guid, '--not-processed', '--force']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const [row] = await store.sql.query<{ payment_result: number }>('SELECT payment_result FROM payments WHERE id = $1', [guid]);
    expect(row!.payment_result).toBe(4);
  });

  it('contract remove --json prints JSON', async () => {
    // Was: exit 0 with the text "There was no schedule for group 1." on stdout.
    const res = await cli(['contract', 'remove', partner.ClientId, '--group', '1', '--json']);
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout)).toEqual({ ClientId: partner.ClientId, group: 1, removed: expect.any(Boolean) });
  });

  it('reports an unexpected error in one line, without the SQL or its parameters', async () => {
    const boom: Command = {
      name: 'fuzz boom',
      summary: 'throws what a failed query throws',
      usage: 'fuzz boom',
      async run() {
        throw Object.assign(new Error(`Failed query: insert into "partners" values ($1, $2)\nparams: x,scrypt$secret-hash`), { cause: new Error('connection terminated') });
      },
    };
    commands.push(boom);
    try {
      const res = await cli(['fuzz', 'boom']);
      expect(res.code).toBe(1);
      expect(res.stderr).toBe('error: connection terminated\n');
    } finally {
      commands.splice(commands.indexOf(boom), 1);
    }
  });
});
