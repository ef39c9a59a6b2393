import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, testConfig } from '../../../src/config.ts';
import { createServices, type Services } from '../../../src/composition.ts';
import { ManualClock } from '../../../src/platform/clock.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { createLogger } from '../../../src/platform/logging.ts';
import type { Store } from '../../../src/platform/database/database.ts';
import { seedTestPartner, cardPaymentInput } from '../../helpers/context.ts';
import { testDatabaseUrl } from '../../helpers/database-url.ts';
import { insertSyntheticPayments } from '../../helpers/report-data.ts';
import { freshStore } from '../../helpers/store.ts';
import { buildApp } from '../../../src/app.ts';
import { openPostgres } from '../../../src/platform/database/database.ts';

describe('configuration', () => {
  it('reads DATABASE_REPLICA_URL beside DATABASE_URL', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://db/main', DATABASE_REPLICA_URL: ' postgres://replica/main ' });
    expect(config.databaseReplicaUrl).toBe('postgres://replica/main');
    expect(loadConfig({}).databaseReplicaUrl).toBeUndefined();
  });

  it('refuses a replica of the embedded database, and a URL that is not PostgreSQL', () => {
    expect(() => loadConfig({ DATABASE_REPLICA_URL: 'postgres://replica/main' })).toThrow(new ConfigError('DATABASE_REPLICA_URL is a read replica of DATABASE_URL: set DATABASE_URL too'));
    expect(() => loadConfig({ DATABASE_URL: 'postgres://db/main', DATABASE_REPLICA_URL: 'mysql://replica' })).toThrow(ConfigError);
  });

  it('reads REPORT_EXPORT_CONCURRENCY (default 2)', () => {
    expect(loadConfig({}).reportExportConcurrency).toBe(2);
    expect(loadConfig({ REPORT_EXPORT_CONCURRENCY: '5' }).reportExportConcurrency).toBe(5);
    expect(() => loadConfig({ REPORT_EXPORT_CONCURRENCY: '0' })).toThrow(ConfigError);
  });

  it('reads REPORT_EXPORT_MAX_MINUTES (default 60)', () => {
    expect(loadConfig({}).reportExportMaxMinutes).toBe(60);
    expect(loadConfig({ REPORT_EXPORT_MAX_MINUTES: '5' }).reportExportMaxMinutes).toBe(5);
    expect(() => loadConfig({ REPORT_EXPORT_MAX_MINUTES: '0' })).toThrow(ConfigError);
  });
});

/** Reports read where the composition root says: the replica when there is one. */
describe.runIf(testDatabaseUrl())('a read replica (PostgreSQL)', () => {
  let primary: Store;
  let replica: Store;
  let services: Services;

  beforeAll(async () => {
    primary = await freshStore();
    // Another database of the same schema stands in for the replica: what it holds is what reports show.
    replica = await freshStore();
    services = createServices({ store: primary, reportStore: replica, clock: new ManualClock(), ids: cryptoIds, config: testConfig(), log: createLogger('silent') });
  });
  afterAll(async () => {
    await primary.close();
    await replica.close();
  });

  it('sends report queries to the replica, payments to the primary', async () => {
    const partner = await seedTestPartner(services, 'Replica Partner', 'non-profit');
    const auth = { id: partner.ClientId, name: partner.name, kind: partner.kind };
    await services.payments.payCard(auth, cardPaymentInput(1000));
    await insertSyntheticPayments(replica.sql, {
      partnerId: partner.ClientId,
      processorId: partner.processorId,
      integrationSourceIds: [partner.integrationSourceId],
      organizationIds: [null],
      count: 3,
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-01-02T00:00:00Z'),
      prefix: 'replica',
    });
    const page = await services.reports.page(auth, { kind: 'sources' }, { filters: [] });
    expect(page.totalCount).toBe(3);
    expect(page.rows.every((r) => r.paymentExternalId?.startsWith('tx-replica-'))).toBe(true);
  });
});

/** A replica that cannot be reached: the report's answer is the API's 503, never a 500 or half a file. */
describe('an unreachable report database', () => {
  let primary: Store;
  let unreachable: Store;
  let services: Services;
  let app: Awaited<ReturnType<typeof buildApp>>;
  let token: string;

  beforeAll(async () => {
    primary = await freshStore();
    // Nothing listens on port 1: every connection is refused at once.
    unreachable = openPostgres('postgres://postgres@127.0.0.1:1/none', 2);
    services = createServices({ store: primary, reportStore: unreachable, clock: new ManualClock(), ids: cryptoIds, config: testConfig(), log: createLogger('silent') });
    app = await buildApp({ services });
    const partner = await seedTestPartner(services, 'Outage Partner', 'non-profit');
    token = (await services.sessions.createSession(partner.ClientId, partner.ClientSecret)).token;
  });
  afterAll(async () => {
    await app.close();
    await unreachable.close();
    await primary.close();
  });

  it.each([
    ['a page', '/api/sourceTransactionsReport', {}],
    ['a CSV export', '/api/exportSourceTransactionsReport', { Format: 'csv' }],
    ['an Excel export', '/api/exportSourceTransactionsReport', { Format: 'excel' }],
  ])('%s is 503 with Retry-After', async (_name, url, extra) => {
    const res = await app.inject({ method: 'POST', url, headers: { AccessToken: token }, payload: { Filters: [], ...extra } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('5');
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['content-disposition']).toBeUndefined();
  });

  it('frees the export slot it took', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await app.inject({ method: 'POST', url: '/api/exportSourceTransactionsReport', headers: { AccessToken: token }, payload: { Filters: [] } });
      expect(res.json()).toMatchObject({ detail: 'The service cannot reach its database. Try again shortly.' });
    }
  });
});
