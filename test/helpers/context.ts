import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { ManualClock } from '../../src/platform/clock.ts';
import { type Config, testConfig } from '../../src/config.ts';
import { createDemoPartner } from '../../src/demo/seed.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createLogger } from '../../src/platform/logging.ts';
import { createServices, type Services } from '../../src/composition.ts';
import type { ProcessorAdapter } from '../../src/processors/processor.ts';
import type { CardPaymentInput } from '../../src/modules/payments/payment-input.ts';
import type { Store } from '../../src/platform/database/database.ts';
import type { Metrics } from '../../src/platform/metrics/metrics.ts';
import { freshStore } from './store.ts';

export interface TestPartner {
  name: string;
  kind: 'non-profit' | 'for-profit';
  ClientId: string;
  ClientSecret: string;
  ApiKey: string;
  processorId: string;
  integrationSourceId: string;
  organizationId: string | undefined;
}

export interface TestContext {
  app: FastifyInstance;
  services: Services;
  store: Store;
  clock: ManualClock;
  /** Every log line the app wrote, as text. */
  logs: string[];
  nonProfit: TestPartner;
  forProfit: TestPartner;
  /** A fresh access token for a partner. */
  token(partner: TestPartner): Promise<string>;
  /** app.inject with the partner's AccessToken header. */
  as(partner: TestPartner, options: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export async function seedTestPartner(services: Services, name: string, kind: 'non-profit' | 'for-profit'): Promise<TestPartner> {
  const c = await createDemoPartner(services, name, kind);
  const [processor] = await services.partners.listProcessors(c.ClientId);
  const [source] = await services.partners.listIntegrationSources(c.ClientId);
  const [org] = await services.partners.listOrganizations(c.ClientId);
  return { ...c, processorId: processor!.id, integrationSourceId: source!.id, organizationId: org?.id };
}

/**
 * An app on a fresh database with the demo environment's two partners, a manual clock and
 * captured logs. Call close() in afterAll.
 */
export async function createTestContext(
  options: { config?: Partial<Config>; clock?: ManualClock; extraApiRoutes?: (api: FastifyInstance) => void; metrics?: Metrics } = {},
): Promise<TestContext> {
  const store = await freshStore();
  const clock = options.clock ?? new ManualClock();
  const config = testConfig({ sessionRateLimitPerMinute: 100_000, publicRateLimitPerMinute: 100_000, gatewayLoginRateLimitPerMinute: 100_000, ...options.config });
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, done) {
      logs.push(String(chunk));
      done();
    },
  });
  const services = createServices({ store, clock, ids: cryptoIds, config, log: createLogger('debug', logStream), metrics: options.metrics });
  const app = await buildApp({ services, extraApiRoutes: options.extraApiRoutes });
  await app.ready();
  const nonProfit = await seedTestPartner(services, 'Test Charity Partner', 'non-profit');
  const forProfit = await seedTestPartner(services, 'Test Merchant Partner', 'for-profit');
  const tokens = new Map<string, string>();
  const token = async (partner: TestPartner) => (await services.sessions.createSession(partner.ClientId, partner.ClientSecret)).token;
  return {
    app,
    services,
    store,
    clock,
    logs,
    nonProfit,
    forProfit,
    token,
    async as(partner, opts) {
      // Tokens live 5 hours of the manual clock; tests that move it past that ask for new ones.
      let t = tokens.get(partner.ClientId);
      if (!t || !(await services.sessions.authenticate(t))) {
        t = await token(partner);
        tokens.set(partner.ClientId, t);
      }
      return app.inject({ ...opts, headers: { ...opts.headers, AccessToken: t } });
    },
    async close() {
      await app.close();
      await store.close();
    },
  };
}

/** A payment service request for one approved card line of `amountCents` (group 1, no fee paid). */
export function cardPaymentInput(amountCents: number, overrides: Partial<CardPaymentInput> = {}): CardPaymentInput {
  return {
    cardNum: '4242424242424242',
    expMonth: '12',
    expYear: '30',
    nameOnCard: 'Ada Lovelace',
    email: 'ada@example.org',
    ipAddress: '203.0.113.9',
    lines: [{ transactionSourceGroupId: 1, amountCents, payFee: false, tipCents: 0, taxCents: 0 }],
    ...overrides,
  };
}

/**
 * Runs `fn` while the simulator answers with `overrides` (a decline, a throw), then puts the
 * simulator's own methods back, whatever `fn` did.
 */
export async function withSimulator<T>(services: Services, overrides: Partial<Pick<ProcessorAdapter, 'sale' | 'void' | 'refund' | 'settle'>>, fn: () => Promise<T>): Promise<T> {
  const adapter = services.processorAdapters.get('simulator') as ProcessorAdapter & Record<string, unknown>;
  const originals = Object.fromEntries(Object.keys(overrides).map((k) => [k, adapter[k]]));
  Object.assign(adapter, overrides);
  try {
    return await fn();
  } finally {
    Object.assign(adapter, originals);
  }
}
