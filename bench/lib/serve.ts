/**
 * A benchmark server: the real app (same plugins, same store kind) plus probe routes inside
 * surface A: one public, one behind the AccessToken check, one that does a single INSERT, one an
 * INSERT then an UPDATE of that row. Run as a child process so the load
 * generator does not share its event loop. Prints "READY <port> <json>" when listening.
 */
import { buildApp } from '../../src/app.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices } from '../../src/composition.ts';
import { openPglite, openPostgres, type Store } from '../../src/platform/database/database.ts';
import { migrate } from '../../src/platform/database/migrate.ts';
import { seedTestPartner } from './seed.ts';
import { createLogger } from '../../src/platform/logging.ts';
import { Metrics } from '../../src/platform/metrics/metrics.ts';
import { startMetricsServer } from '../../src/platform/metrics/server.ts';

const config = { ...loadConfig(), logLevel: 'warn', sessionRateLimitPerMinute: 10_000_000, publicRateLimitPerMinute: 10_000_000 };
const store: Store = config.databaseUrl ? openPostgres(config.databaseUrl, config.databasePoolSize) : await openPglite();
await migrate(store);
// METRICS_PORT (the harness turns it off unless a benchmark sets it): metrics as `npm start` has them.
const metrics = config.metrics ? new Metrics() : undefined;
// BENCH_SIMULATOR_LEDGER=off: the simulator without its ledger (bench/simulator-ledger.ts compares the two).
const services = createServices({ log: createLogger('warn'), store, clock: systemClock, ids: cryptoIds, config, metrics, simulatorLedger: process.env.BENCH_SIMULATOR_LEDGER !== 'off' });
const partner = await seedTestPartner(services, `Bench Partner ${Date.now()}`, 'non-profit');
// The baseline of write benchmarks: one INSERT per request into the same database.
await store.sql.exec('CREATE TABLE IF NOT EXISTS bench_inserts (id uuid PRIMARY KEY, partner_id uuid NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL)');
const app = await buildApp({
  services,
  extraApiRoutes: (api) => {
    api.get('/probe/open', { config: { public: true } }, async () => ({ ok: true }));
    api.get('/probe/authed', async (request) => ({ ok: true, partner: request.partner.id === partner.ClientId }));
    // The least a payment must write: its pending row before the processor is asked, then the
    // processor's answer on it (two statements, two commits). Reported next to the baseline.
    api.post('/probe/insert-update', async (request, reply) => {
      const id = cryptoIds.uuid();
      await store.sql.query('INSERT INTO bench_inserts (id, partner_id, payload, created_at) VALUES ($1, $2, $3, now())', [id, request.partner.id, JSON.stringify(request.body ?? {})]);
      await store.sql.query('UPDATE bench_inserts SET payload = $2 WHERE id = $1', [id, '{"answered":true}']);
      return reply.code(201).send({ ok: true, id });
    });
    api.post('/probe/insert', async (request, reply) => {
      const id = cryptoIds.uuid();
      await store.sql.query('INSERT INTO bench_inserts (id, partner_id, payload, created_at) VALUES ($1, $2, $3, now())', [id, request.partner.id, JSON.stringify(request.body ?? {})]);
      return reply.code(201).send({ ok: true, id });
    });
  },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const { port } = app.server.address() as { port: number };
const metricsServer = metrics && config.metrics ? await startMetricsServer(metrics, { port: config.metrics.port, host: '127.0.0.1' }) : undefined;
const token = (await services.sessions.createSession(partner.ClientId, partner.ClientSecret)).token;
process.stdout.write(`READY ${port} ${JSON.stringify({ partner, token, store: store.kind, metricsPort: metricsServer?.port })}\n`);

const stop = async () => {
  await metricsServer?.close();
  await app.close();
  await store.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
