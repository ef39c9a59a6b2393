import { ManualClock } from '../../src/platform/clock.ts';
import { testConfig } from '../../src/config.ts';
import { createDemoPartner } from '../../src/demo/seed.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices } from '../../src/composition.ts';
import { openStore, type Store } from '../../src/platform/database/database.ts';
import { type RunningService, startService } from './process.ts';
import { processStore } from './store.ts';
import { testLogger } from './logger.ts';

/**
 * Server processes, as `npm start` runs them, on one store (this run's PostgreSQL, or PGlite in a
 * data directory) with one demo partner: the fixture of the tests that run several processes.
 */
export interface ServerProcesses {
  /** The environment every process of the store is started with. */
  env: Record<string, string>;
  partner: { ClientId: string; ClientSecret: string };
  /** A server process (DEMO and BILLING_WORKER off), with `extra` in its environment. */
  start(extra?: Record<string, string>): Promise<{ service: RunningService; base: string }>;
  /** An AccessToken of the partner from a server. */
  token(base: string): Promise<string>;
  /** The store itself, for reading what the processes wrote (the caller closes it). */
  open(): Promise<Store>;
  /** Kills what is still running and removes the store. */
  close(): Promise<void>;
}

/** An approved card payment's request body (POST /api/payment) of `amount`, with `tranId` when given. */
export function cardPayment(amount: string, tranId?: string) {
  return {
    CardNum: '4242424242424242',
    ExpMonth: '12',
    ExpYear: '34',
    CVNum: '123',
    NameOnCard: 'Ada Lovelace',
    Email: 'ada@example.org',
    IpAddress: '203.0.113.9',
    ...(tranId === undefined ? {} : { TranId: tranId }),
    Transactions: [{ TransactionSourceGroupId: '1', Amount: amount }],
  };
}

export async function serverProcesses(name: string, partnerName: string): Promise<ServerProcesses> {
  const { env, cleanup } = await processStore(name);
  const running: RunningService[] = [];
  const open = () => openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 2 });
  const store = await open();
  let partner: { ClientId: string; ClientSecret: string };
  try {
    const services = createServices({ log: testLogger(), store, clock: new ManualClock(), ids: cryptoIds, config: testConfig() });
    partner = await createDemoPartner(services, partnerName, 'non-profit');
  } finally {
    await store.close();
  }
  return {
    env,
    partner,
    open,
    async start(extra = {}) {
      const service = await startService({ ...env, DEMO: 'off', BILLING_WORKER: 'off', ...extra });
      running.push(service);
      return { service, base: `http://127.0.0.1:${service.port}` };
    },
    async token(base) {
      const res = await fetch(`${base}/api/ClientSession`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(partner) });
      return ((await res.json()) as { Token: string }).Token;
    },
    async close() {
      for (const s of running) if (s.process.exitCode === null && s.process.signalCode === null) s.process.kill('SIGKILL');
      await cleanup();
    },
  };
}
