import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SERVER_ENTRY, SERVER_NODE_FLAGS, freePort } from './helpers/process.ts';
import { processStore } from './helpers/store.ts';

/**
 * The stop is bounded whatever the process's output does: SHUTDOWN_GRACE + PROCESSOR_TIMEOUT + 5 s
 * after SIGTERM at the latest (README), and the data directory's lock is released.
 */
const ROOT = join(import.meta.dirname, '..');

let store: Awaited<ReturnType<typeof processStore>>;
beforeAll(async () => {
  store = await processStore('stop');
});
afterAll(() => store.cleanup());

function serve(env: Record<string, string>) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...store.env, DEMO: 'off', SHUTDOWN_GRACE: '1', PROCESSOR_TIMEOUT: '1', ...env };
  if (!store.env.DATABASE_URL) delete childEnv.DATABASE_URL;
  const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_ENTRY], { cwd: ROOT, env: childEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<{ code: number | null; at: number }>((resolve) => child.once('exit', (code) => resolve({ code, at: Date.now() })));
  return { child, exited };
}

async function listening(port: number, deadline: number): Promise<void> {
  while (Date.now() < deadline) {
    const up = await fetch(`http://127.0.0.1:${port}/healthz`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the service did not start');
}

/** Whether any other session is connected to the database at `url` (a fresh one per test file). */
function connectedTo(url: string): () => Promise<boolean> {
  return async () => {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()');
      return Number(rows[0]!.n) > 0;
    } finally {
      await client.end();
    }
  };
}

describe('the stop', () => {
  it('ends within its bound when nobody reads the server output (a full pipe)', async () => {
    const port = await freePort();
    // Every request logs; stdout is a pipe this test never reads, so it fills (64 KiB) and stays full.
    const { child, exited } = serve({ PORT: String(port), LOG_LEVEL: 'debug' });
    child.stdout!.pause();
    await listening(port, Date.now() + 60_000);
    for (let i = 0; i < 600; i++) await fetch(`http://127.0.0.1:${port}/api/no-such-route-${'x'.repeat(200)}`).then((r) => r.arrayBuffer());
    const signalled = Date.now();
    child.kill('SIGTERM');
    const { at } = await exited;
    // SHUTDOWN_GRACE 1 s + PROCESSOR_TIMEOUT 1 s + 5 s.
    expect(at - signalled).toBeLessThan(7_000);
    expect(existsSync(join(store.dataDir, 'payments.lock'))).toBe(false);
  }, 90_000);

  it('takes the stop path for a signal that comes while the server starts: exit 0, lock released', async () => {
    const port = await freePort();
    const { child, exited } = serve({ PORT: String(port) });
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    // Once it holds its data directory (PGlite) or has connected to its database (PostgreSQL,
    // where there is no lock), before it listens: the start goes on for a while then (the
    // database opens, migrations are checked). Either comes after the signal handlers are set.
    const lock = join(store.dataDir, 'payments.lock');
    const deadline = Date.now() + 60_000;
    const started = store.env.DATABASE_URL ? connectedTo(store.env.DATABASE_URL) : async () => existsSync(lock);
    while (Date.now() < deadline && !(await started())) await new Promise((r) => setTimeout(r, 5));
    expect(out).not.toContain('listening');
    child.kill('SIGTERM');
    const { code } = await exited;
    expect(code, out).toBe(0);
    expect(out).toContain('"msg":"stopped"');
    expect(existsSync(join(store.dataDir, 'payments.lock'))).toBe(false);
  }, 90_000);
});
