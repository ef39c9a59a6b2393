import { readFileSync, statSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { oldNodeMessage } from '../bin/node-version.js';
import { freePort, runCliProcess, runServiceExpectingExit, SERVER_ENTRY, SERVER_NODE_FLAGS, startService } from './helpers/process.ts';
import { processStore } from './helpers/store.ts';
import { openStore } from '../src/platform/database/database.ts';

/** What `npm start` does on a fresh machine, run as a real process on this run's kind of store. */
let env: Record<string, string>;
let cleanup: () => Promise<void>;

beforeAll(async () => {
  ({ env, cleanup } = await processStore('start'));
});
afterAll(() => cleanup());

/** Whether the banner marks the demo gateway user's password as no longer valid. */
function gatewayPasswordMarked(output: string): boolean {
  const line = /Gateway user: .*/.exec(output)?.[0];
  expect(line).toBeDefined();
  return line!.includes('(reset since: no longer valid');
}

describe('npm start', () => {
  it('seeds the demo once, prints how to call it (secrets only to a terminal: here it is a pipe) and a curl, and the same on the next start', async () => {
    const first = await startService(env);
    let firstOutput = '';
    try {
      firstOutput = first.output();
      expect(firstOutput).toContain('Demo Charity Partner (non-profit)');
      // A new data directory has no vault key file until its first token: nothing to warn of.
      expect(firstOutput).not.toMatch(/vault key|VaultError|"level":(40|50)/);
      expect(firstOutput).toContain('Demo Merchant Partner (for-profit)');
      const file = join(env.DATA_DIR!, 'demo-credentials.json');
      const curl = /curl -s -X POST (\S+) -H 'Content-Type: application\/json' -d '([^']+)'/.exec(firstOutput);
      expect(curl).not.toBeNull();
      // The curl says where the secret is; filled in from that file, it works.
      const placeholder = `<ClientSecret from ${file}>`;
      expect(curl![2]).toContain(placeholder);
      const secretOf = (clientId: string) => (JSON.parse(readFileSync(file, 'utf8')) as { partners: { ClientId: string; ClientSecret: string }[] }).partners.find((p) => p.ClientId === clientId)!.ClientSecret;
      const body = JSON.parse(curl![2]!) as { ClientId: string; ClientSecret: string };
      expect(body.ClientSecret).toBe(placeholder);
      const res = await fetch(curl![1]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...body, ClientSecret: secretOf(body.ClientId) }) });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { Token?: string }).Token).toBeTruthy();

      expect(statSync(file).mode & 0o777).toBe(0o600);
      // The embedded database holds payer data: its directory is the owner's alone, whatever the umask.
      if (!env.DATABASE_URL) expect(statSync(join(env.DATA_DIR!, 'pglite')).mode & 0o777).toBe(0o700);
      const saved = JSON.parse(readFileSync(file, 'utf8'));
      expect(saved.partners.map((p: { kind: string }) => p.kind)).toEqual(['non-profit', 'for-profit']);
      // Not a terminal: the output may be a log, which never holds a secret (an audit of the logs).
      for (const p of saved.partners) {
        expect(firstOutput).toContain(p.ClientId);
        expect(firstOutput).not.toContain(p.ClientSecret);
        expect(firstOutput).not.toContain(p.ApiKey);
      }
      expect(firstOutput).not.toContain(saved.gatewayUsers[0].Password);
      expect(firstOutput).toContain('secrets are printed only to a terminal');
      // The for-profit partner's payments must name a processor: the banner gives it.
      const merchantLines = firstOutput.slice(firstOutput.indexOf('Demo Merchant Partner (for-profit)'));
      expect(merchantLines).toMatch(/ProcessorGuid: [0-9a-f-]{36} \(MKey demo-merchant-simulator\)/);
    } finally {
      expect(await first.stop()).toBe(0);
    }

    const second = await startService(env);
    try {
      const secrets = (text: string) => [...text.matchAll(/ClientSecret: ([^\n]+)/g)].map((m) => m[1]);
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
    const gatewayUser = saved.gatewayUsers[0].Username as string;
    expect(gatewayPasswordMarked(firstOutput)).toBe(false);
    expect((await runCliProcess(['gateway-user', 'reset-password', gatewayUser], env)).code).toBe(0);
    const third = await startService({ ...env, LOG_LEVEL: 'info' });
    try {
      const stale = [...third.output().matchAll(/ClientSecret: [^\n]*/g)].map((m) => m[0].includes('(rotated since: no longer valid'));
      expect(stale).toEqual([false, true]);
      expect(third.output()).not.toMatch(/ApiKey: [^\n]*\(rotated/);
      // So is a demo gateway password reset since (a fresh-machine audit found it printed as valid).
      expect(gatewayPasswordMarked(third.output())).toBe(true);
    } finally {
      expect(await third.stop()).toBe(0);
    }
    // The service says when it has stopped (and its data directory is free).
    expect(third.output()).toMatch(/"msg":"stopped"/);
  }, 180_000);

  it('stops when npm itself gets SIGTERM (a process manager signals the process it started)', async () => {
    // npm runs the script through sh, which died on SIGTERM without passing it on: the service
    // kept serving, and holding its data directory (a fresh-machine audit).
    const port = await freePort();
    const npm = process.env.npm_execpath ? [process.execPath, [process.env.npm_execpath, 'start']] as const : ['npm', ['start']] as const;
    // Its own process group, so that whatever this test leaves (a failure's orphan) is killed after.
    const child = spawn(npm[0], [...npm[1]], { cwd: join(import.meta.dirname, '..'), detached: true, env: { ...process.env, ...env, DEMO: 'off', LOG_LEVEL: 'info', PORT: String(port) } });
    try {
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      const deadline = Date.now() + 60_000;
      while (!out.includes('Payment service listening on') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      expect(out).toContain('Payment service listening on');
      child.kill('SIGTERM');
      await exited;
      // npm waited for the service, which stopped as on Ctrl-C: nothing answers on its port any more.
      expect(out).toMatch(/"msg":"stopped"/);
      await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // The group is gone: nothing was left.
      }
    }
  }, 120_000);

  it('keeps serving when the reader of its output goes away (npm start | head -1), and stops cleanly', async () => {
    // Node crashes on the first write to a closed pipe (EPIPE): the service died at its banner.
    const port = await freePort();
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, SERVER_ENTRY], {
      cwd: join(import.meta.dirname, '..'),
      env: { ...process.env, ...env, DEMO: 'off', LOG_LEVEL: 'info', PORT: String(port) },
    });
    // The reader is gone before the service writes anything: the banner and every log line meet a closed pipe.
    child.stdout.destroy();
    child.stderr.destroy();
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const deadline = Date.now() + 60_000;
      let up = false;
      while (!up && child.exitCode === null && Date.now() < deadline) {
        up = await fetch(`http://127.0.0.1:${port}/healthz`).then((r) => r.ok, () => false);
        if (!up) await new Promise((r) => setTimeout(r, 100));
      }
      expect(up).toBe(true);
      // The banner is written once listening; each request writes an info line.
      await new Promise((r) => setTimeout(r, 500));
      for (let i = 0; i < 5; i++) expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
      expect(child.exitCode).toBeNull();
      child.kill('SIGTERM');
      expect(await exited).toBe(0);
    } finally {
      child.kill('SIGKILL');
    }
  }, 120_000);

  it('names the database when it cannot reach it at start', async () => {
    const run = await runServiceExpectingExit({ ...env, DEMO: 'off', DATABASE_URL: 'postgres://postgres:secret-word@127.0.0.1:1/none' });
    expect(run.code).toBe(1);
    expect(run.output).toContain('The service could not start: its database is not reachable (DATABASE_URL): connect ECONNREFUSED 127.0.0.1:1');
    expect(run.output).not.toContain('secret-word');
  }, 60_000);

  it('says which Node.js it needs when an older one runs it, instead of a stack trace', async () => {
    expect(oldNodeMessage('24.0.0')).toBeUndefined();
    expect(oldNodeMessage('22.12.0')).toMatch(/^This service needs Node\.js 24 or newer .*this is Node\.js v22\.12\.0/);
    // The machine's system Node, where it is older (Debian's 20 here), refuses both entry points.
    const system = spawnSync('/usr/bin/node', ['--version'], { encoding: 'utf8' });
    const old = system.status === 0 && oldNodeMessage(system.stdout.trim().slice(1)) !== undefined;
    for (const entry of old ? ['bin/start.js', 'bin/payments.js'] : []) {
      const run = spawnSync('/usr/bin/node', [entry, 'partner', 'list'], { cwd: join(import.meta.dirname, '..'), encoding: 'utf8', env: { ...process.env, DATA_DIR: env.DATA_DIR } });
      expect(run.status, entry).toBe(2);
      expect(run.stderr).toMatch(/^This service needs Node\.js 24 or newer/);
      expect(run.stderr).not.toMatch(/ERR_UNKNOWN_FILE_EXTENSION|\n\s+at /);
    }
  });

  it('answers a payment in flight at SIGTERM before it stops (draining), and takes no new connection meanwhile', async () => {
    const service = await startService({ ...env, SIMULATOR_LATENCY_MS: '1500', LOG_LEVEL: 'info' });
    const base = `http://127.0.0.1:${service.port}`;
    const saved = JSON.parse(readFileSync(join(env.DATA_DIR!, 'demo-credentials.json'), 'utf8')) as { partners: { kind: string; ClientId: string; ClientSecret: string }[] };
    const partner = saved.partners.find((p) => p.kind === 'non-profit')!;
    const session = await fetch(`${base}/api/ClientSession`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ ClientId: partner.ClientId, ClientSecret: partner.ClientSecret }),
    });
    const { Token } = (await session.json()) as { Token: string };
    const payment = fetch(`${base}/api/payment`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', AccessToken: Token },
      body: JSON.stringify({
        CardNum: '4242424242424242', ExpMonth: '12', ExpYear: '35', CVNum: '123', NameOnCard: 'Drain Test', Email: 'drain@example.org',
        Street: '1 Main St', Zip: '12345', IpAddress: '203.0.113.9',
        Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00' }],
      }),
    });
    // The payment is at the processor (1.5 s) when the signal comes.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const exit = service.stop();
    await new Promise((resolve) => setTimeout(resolve, 200));
    // A new connection is refused (a kept-alive one would be answered 503).
    const late = await fetch(`${base}/healthz`).then((r) => r.status, () => 'refused');
    expect(['refused', 503]).toContain(late);
    const res = await payment;
    expect(res.status, await res.clone().text()).toBe(201);
    expect(((await res.json()) as { Successful: boolean }).Successful).toBe(true);
    expect(res.headers.get('connection')).toBe('close');
    // Well within SHUTDOWN_GRACE (30 s): the answered connection is not kept alive.
    const stopping = Date.now();
    expect(await exit).toBe(0);
    expect(Date.now() - stopping).toBeLessThan(10_000);
    // In the order of the lines' own times: the stream may write two lines of the same moment out of order.
    const lines = service.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l) as { time: number; msg: string; res?: { statusCode: number } });
    const at = (found: { time: number } | undefined) => found?.time ?? Number.NaN;
    const draining = at(lines.find((l) => l.msg === 'shutting down: draining requests'));
    const answered = at(lines.find((l) => l.msg === 'request completed' && l.res?.statusCode === 201));
    const stopped = at(lines.find((l) => l.msg === 'stopped'));
    expect(draining).toBeLessThanOrEqual(answered);
    expect(answered).toBeLessThanOrEqual(stopped);
    expect(service.output()).not.toContain('grace over');
  }, 120_000);

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

  // Last in the file: it leaves a Pending charge and a billing lease behind, as a crash would.
  it('ends a stop that a billing run against a stuck processor holds: 5 s after a second signal, as after a crash', async () => {
    const ready = await startService(env);
    const base = `http://127.0.0.1:${ready.port}`;
    try {
      const saved = JSON.parse(readFileSync(join(env.DATA_DIR!, 'demo-credentials.json'), 'utf8')) as { partners: { kind: string; ClientId: string; ClientSecret: string }[] };
      const partner = saved.partners.find((p) => p.kind === 'non-profit')!;
      const call = async (path: string, body: unknown, token?: string) => {
        const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { AccessToken: token } : {}) }, body: JSON.stringify(body) });
        return (await res.json()) as Record<string, string>;
      };
      const token = (await call('/api/ClientSession', { ClientId: partner.ClientId, ClientSecret: partner.ClientSecret })).Token!;
      const paid = await call('/api/payment', {
        CardNum: '4242424242424242', ExpMonth: '12', ExpYear: '35', CVNum: '123', NameOnCard: 'Stuck Stop', Email: 'stop@example.org', IpAddress: '203.0.113.9', Tokenize: true,
        Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00' }],
      }, token);
      const today = new Date().toISOString().slice(0, 10);
      const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);
      const profile = await call('/api/recurringProfile', { TokenGuid: paid.TokenGuid, Amount: '5.00', StartDate: yesterday, NextBillDate: today, BillingFrequency: 'Monthly' }, token);
      expect(profile.RecurringProfileGuid, JSON.stringify({ paid, profile })).toBeDefined();
    } finally {
      await ready.stop();
    }
    // The processor never answers within its deadline (600 s): the worker's charge is stuck.
    const stuck = await startService({ ...env, SIMULATOR_LATENCY_MS: '60000', PROCESSOR_TIMEOUT: '600', BILLING_INTERVAL: '5', SHUTDOWN_GRACE: '1', LOG_LEVEL: 'info' });
    const exit = new Promise<number | null>((resolve) => stuck.process.once('exit', (code) => resolve(code)));
    // The worker's first run comes BILLING_INTERVAL (5 s) after the start; its charge is then at the processor.
    await new Promise((resolve) => setTimeout(resolve, 10_000));
    stuck.process.kill('SIGTERM');
    const stillRunning = await Promise.race([exit.then(() => false), new Promise((resolve) => setTimeout(() => resolve(true), 2_000))]);
    expect(stillRunning, stuck.output()).toBe(true);
    const second = Date.now();
    stuck.process.kill('SIGTERM');
    expect(await exit).toBe(1);
    expect(Date.now() - second).toBeLessThan(10_000);
    expect(stuck.output()).toContain('stopping now, with work still in progress');

    // The charge it left Pending: once 15 minutes old, the next start says so (and how to resolve it).
    const store = await openStore({ databaseUrl: env.DATABASE_URL, dataDir: env.DATA_DIR!, databasePoolSize: 1 });
    try {
      const aged = await store.sql.query("UPDATE payments SET created_at = created_at - interval '20 minutes' WHERE payment_result = 1 RETURNING id");
      expect(aged).toHaveLength(1);
    } finally {
      await store.close();
    }
    const next = await startService({ ...env, BILLING_WORKER: 'off' });
    try {
      expect(next.output()).toMatch(/"payments":1,"refundsAndVoids":0,"msg":"payments, refunds or voids have waited 15 minutes or more for their outcome: look them up with payments pending list/);
    } finally {
      await next.stop();
    }
  }, 180_000);
});
