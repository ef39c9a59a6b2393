import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../src/config.ts';
import { createServices } from '../../src/composition.ts';
import { openStore } from '../../src/platform/database/database.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { seedTestPartner } from '../helpers/context.ts';
import { testLogger } from '../helpers/logger.ts';
import { runCliProcess } from '../helpers/process.ts';
import { processStore } from '../helpers/store.ts';
import { FakeAuthorizeNet } from '../processors/authorizenet/fake-authorizenet.ts';

/** `payments processors add|test` as processes, against a local fake of Authorize.Net. */

const LOGIN = 'cliLogin7';
const KEY = 'Q1w2E3r4T5y6U7i8';

let env: Record<string, string>;
let cleanup: () => Promise<void>;
let fake: FakeAuthorizeNet;
let clientId: string;

beforeAll(async () => {
  fake = await FakeAuthorizeNet.start([{ name: LOGIN, transactionKey: KEY }]);
  const made = await processStore('processors');
  cleanup = made.cleanup;
  // The vault key and the sandbox endpoint every process of the test shares.
  env = { ...made.env, VAULT_KEY: Buffer.alloc(32, 9).toString('base64'), AUTHORIZENET_SANDBOX_URL: fake.url };
  const store = await openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 2 });
  try {
    const services = createServices({ log: testLogger(), store, clock: new ManualClock(), ids: cryptoIds, config: testConfig() });
    clientId = (await seedTestPartner(services, 'Processors CLI partner', 'for-profit')).ClientId;
  } finally {
    await store.close();
  }
});
afterAll(async () => {
  await cleanup();
  await fake.close();
});

/** The CLI with `stdin` on its standard input. */
function cli(stdin: string | undefined, ...args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  if (stdin === undefined) return runCliProcess(['processors', ...args], env);
  return new Promise((resolve) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env };
    if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
    const child = spawn(process.execPath, ['bin/payments.js', 'processors', ...args], { cwd: join(import.meta.dirname, '..', '..'), env: childEnv });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(stdin);
  });
}

// Each command is a process that opens the store (PGlite: a second or more, longer under load).
describe('payments processors', { timeout: 240_000 }, () => {
  it('adds an Authorize.Net sandbox processor with the key from stdin (never printed), and tests it', async () => {
    const added = await cli(`${KEY}\n`, 'add', clientId, '--adapter', 'authorizenet', '--sandbox', '--login', LOGIN, '--name', 'Authorize.Net sandbox', '--json');
    expect(added.stderr).toBe('');
    expect(added.code).toBe(0);
    const json = JSON.parse(added.stdout);
    expect(json).toEqual({ ProcessorGuid: expect.stringMatching(/^[0-9a-f-]{36}$/), Adapter: 'authorizenet', Environment: 'sandbox', PaymentMethodTypes: [1, 2, 3, 4, 5, 6, 7] });
    expect(added.stdout).not.toContain(KEY);

    const tested = await cli(undefined, 'test', json.ProcessorGuid);
    expect([tested.code, tested.stdout, tested.stderr]).toEqual([0, 'OK: Authorize.Net (sandbox) accepted the credentials\n', '']);
    expect(fake.requestsOf('authenticateTestRequest').at(-1)).toEqual({ merchantAuthentication: { name: LOGIN, transactionKey: KEY } });
    expect(fake.violations).toEqual([]);
  });

  it('says when Authorize.Net refuses the credentials (exit 1), and refuses a missing key before writing anything (exit 2)', async () => {
    const wrong = await cli('WRONGKEY12345678\n', 'add', clientId, '--adapter', 'authorizenet', '--sandbox', '--login', LOGIN, '--name', 'Wrong key');
    expect(wrong.code).toBe(0);
    expect(wrong.stdout).toMatch(/^Processor created: [0-9a-f-]{36} \(authorizenet, sandbox\), payment method types 1,2,3,4,5,6,7\nThe credentials are sealed in the vault/);
    const guid = /Processor created: ([0-9a-f-]{36})/.exec(wrong.stdout)![1]!;
    const refused = await cli(undefined, 'test', guid);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toMatch(/^REFUSED: Authorize.Net \(sandbox\) refused the credentials: E00007/);
    expect(refused.stdout + refused.stderr).not.toContain('WRONGKEY12345678');

    const noKey = await cli('', 'add', clientId, '--adapter', 'authorizenet', '--sandbox', '--login', LOGIN, '--name', 'No key');
    expect(noKey.code).toBe(2);
    expect(noKey.stderr).toMatch(/^error: the transaction key is read from standard input/);
    const both = await cli(`${KEY}\n`, 'add', clientId, '--adapter', 'authorizenet', '--sandbox', '--production', '--login', LOGIN, '--name', 'Both');
    expect([both.code, both.stderr]).toEqual([2, expect.stringMatching(/^error: give one of --sandbox and --production/)]);
  });
});
