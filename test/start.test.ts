import { readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCliProcess, startService } from './helpers/process.ts';
import { processStore } from './helpers/store.ts';

/** What `npm start` does on a fresh machine, run as a real process on this run's kind of store. */
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ env, cleanup } = await processStore('start'));
});
afterAll(() => cleanup());

describe('npm start', () => {
  it('seeds the demo once, prints working credentials and a curl, and prints the same ones on the next start', async () => {
    const first = await startService(env);
    let firstOutput = '';
    try {
      firstOutput = first.output();
      expect(firstOutput).toContain('Demo Charity Partner (non-profit)');
      // A new data directory has no vault key file until its first token: nothing to warn of.
      expect(firstOutput).not.toMatch(/vault key|VaultError|"level":(40|50)/);
      expect(firstOutput).toContain('Demo Merchant Partner (for-profit)');
      const curl = /curl -s -X POST (\S+) -H 'Content-Type: application\/json' -d '([^']+)'/.exec(firstOutput);
      expect(curl).not.toBeNull();
      const res = await fetch(curl![1]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: curl![2] });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { Token?: string }).Token).toBeTruthy();

      const file = join(env.DATA_DIR!, 'demo-credentials.json');
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      expect(saved.partners.map((p: { kind: string }) => p.kind)).toEqual(['non-profit', 'for-profit']);
      for (const p of saved.partners) {
        expect(firstOutput).toContain(p.ClientSecret);
        expect(firstOutput).toContain(p.ApiKey);
      }
      // The for-profit partner's payments must name a processor: the banner gives it.
      const merchantLines = firstOutput.slice(firstOutput.indexOf('Demo Merchant Partner (for-profit)'));
      expect(merchantLines).toMatch(/ProcessorGuid: [0-9a-f-]{36} \(MKey demo-merchant-simulator\)/);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startService(env);
    try {
      const secrets = (text: string) => [...text.matchAll(/ClientSecret: (\S+)/g)].map((m) => m[1]);
      expect(secrets(second.output())).toEqual(secrets(firstOutput));
      const list = await runCliProcess(['partner', 'list'], env.DATABASE_URL ? env : { ...env, DATA_DIR: env.DATA_DIR! });
      if (env.DATABASE_URL) {
        // On PostgreSQL the CLI runs beside a live server; two demo partners, not four.
        expect(list.code).toBe(0);
        expect(list.stdout.trim().split('\n')).toHaveLength(2);
      } else {
        expect(list.code).toBe(2);
      }
    } finally {
      expect(await second.stop()).toBe(0);
    }

    // A secret rotated since is marked, not printed as if it still worked.
    const saved = JSON.parse(readFileSync(join(env.DATA_DIR!, 'demo-credentials.json'), 'utf8'));
    const merchantId = saved.partners.find((p: { kind: string }) => p.kind === 'for-profit').ClientId as string;
    expect((await runCliProcess(['partner', 'rotate-secret', merchantId], env)).code).toBe(0);
    const third = await startService(env);
    try {
      const stale = [...third.output().matchAll(/ClientSecret: \S+( \(rotated since: no longer valid[^)]*\))?/g)].map((m) => Boolean(m[1]));
      expect(stale).toEqual([false, true]);
      expect(third.output()).not.toMatch(/ApiKey: +\S+ \(rotated/);
    } finally {
      expect(await third.stop()).toBe(0);
    }
  }, 180_000);

  it('stops after SHUTDOWN_GRACE even while a client holds a half-sent request, and at once on a second signal', async () => {
    for (const secondSignal of [false, true]) {
      const service = await startService({ ...env, DEMO: 'off', SHUTDOWN_GRACE: secondSignal ? '600' : '1' });
      const socket = connect(service.port, '127.0.0.1');
      await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
      socket.on('error', () => {});
      // Headers never finished: the request is in flight for as long as the client likes.
      socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n');
      await new Promise((resolve) => setTimeout(resolve, 200));
      const exit = service.stop();
      if (secondSignal) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        service.process.kill('SIGTERM');
      }
      expect(await exit).toBe(0);
      socket.destroy();
    }
  }, 120_000);
});
