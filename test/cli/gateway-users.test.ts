import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess } from '../helpers/process.ts';
import { processStore } from '../helpers/store.ts';

/** `payments gateway-user ...` refusals as an operator reads them, on this run's kind of store. */
let env: Record<string, string>;
let cleanup: () => Promise<void>;
let clientId: string;

beforeAll(async () => {
  ({ env, cleanup } = await processStore('gwcli-words'));
  const created = await runCliProcess(['partner', 'create', '--name', 'Gateway words', '--kind', 'non-profit', '--json'], env);
  clientId = JSON.parse(created.stdout).ClientId;
}, 180_000);
afterAll(() => cleanup());

const cli = (...args: string[]) => runCliProcess(['gateway-user', ...args], env);

/** The CLI with `stdin` on its standard input (for --password-stdin; runCliProcess leaves it open). */
function cliWithStdin(stdin: string, ...args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const childEnv: NodeJS.ProcessEnv = { ...process.env, LOG_LEVEL: 'warn', ...env };
    if (!env.DATABASE_URL) delete childEnv.DATABASE_URL;
    const child = spawn(process.execPath, ['bin/payments.js', 'gateway-user', ...args], { cwd: join(import.meta.dirname, '..', '..'), env: childEnv });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    child.once('exit', (code) => resolve({ code, stderr }));
    child.stdin.end(stdin);
  });
}

// Each command is a process that opens the store (PGlite: a second or more, longer under load).
describe('payments gateway-user errors', { timeout: 180_000 }, () => {
  it('say the words without the SOAP result code in front', async () => {
    expect((await cli('create', clientId, '--username', 'audit-gw', '--vendor', 'V')).code).toBe(0);
    const taken = await cli('create', clientId, '--username', 'audit-gw', '--vendor', 'V');
    expect([taken.code, taken.stderr]).toEqual([2, 'error: "audit-gw" is taken\n']);
    const short = await cliWithStdin('short\n', 'reset-password', 'audit-gw', '--password-stdin');
    expect([short.code, short.stderr]).toEqual([2, 'error: a password has at least 12 characters\n']);
    const unknown = await cli('disable', 'nosuch');
    expect([unknown.code, unknown.stderr]).toEqual([1, 'error: no gateway user "nosuch"\n']);
    const chars = await cli('create', clientId, '--username', 'bad name!', '--vendor', 'V');
    expect(chars.stderr).toMatch(/^error: a username is 3 to 64 letters/);
  });
});
