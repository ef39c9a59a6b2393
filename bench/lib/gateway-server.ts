/**
 * A benchmark server for the SOAP gateway, run as a child process. GATEWAY_BENCH_MODE picks the
 * SOAP stack in front of the same tokenization service:
 * - `fastify`: our gateway (buildApp: the whole service, as `npm start` serves it);
 * - `node-soap`: node-soap's own server (`soap.listen`) with our WSDL, whose handlers call the
 *   same operation table and GatewayService.
 * Each seeds a partner, a gateway user and a ClientSessionID, then prints
 * "READY <port> <json>".
 *
 * GATEWAY_BENCH_SERVICE=stub (a diagnostic, never the headline figure) replaces GetToken's work
 * with a fixed OK result, so that the two SOAP stacks are compared on their own.
 */
import { createServer } from 'node:http';
import * as soap from 'soap';
import { buildApp } from '../../src/app.ts';
import { systemClock } from '../../src/platform/clock.ts';
import { loadConfig } from '../../src/config.ts';
import type { Params } from '../../src/http/gateway/envelope.ts';
import { OPERATIONS } from '../../src/http/gateway/operations.ts';
import { GATEWAY_PATH } from '../../src/http/gateway/plugin.ts';
import { resultRecord } from '../../src/http/gateway/result-record.ts';
import { wsdlDocument } from '../../src/http/gateway/wsdl.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices } from '../../src/composition.ts';
import { openPglite, openPostgres, type Store } from '../../src/platform/database/database.ts';
import { migrate } from '../../src/platform/database/migrate.ts';
import { memoryVault } from '../../src/modules/vault/vault.ts';
import { seedTestPartner } from './seed.ts';
import { createLogger } from '../../src/platform/logging.ts';

const mode = process.env.GATEWAY_BENCH_MODE === 'node-soap' ? 'node-soap' : 'fastify';
const config = { ...loadConfig(), logLevel: 'warn', sessionRateLimitPerMinute: 10_000_000, publicRateLimitPerMinute: 10_000_000 };
const store: Store = config.databaseUrl ? openPostgres(config.databaseUrl, config.databasePoolSize) : await openPglite();
await migrate(store);
const services = createServices({ log: createLogger('warn'), store, clock: systemClock, ids: cryptoIds, config, vault: memoryVault(systemClock) });
const partner = await seedTestPartner(services, `Gateway Bench ${mode} ${Date.now()}`, 'non-profit');
const username = `bench-${mode}-${Date.now()}`;
const user = await services.gatewayUsers.create({ partnerId: partner.ClientId, username, vendor: 'Bench' });
const session = await services.gateway.getClientSessionId({ username, password: user.password }, { ip: '127.0.0.1', userAgent: 'bench' });

if (process.env.GATEWAY_BENCH_SERVICE === 'stub') {
  services.gateway.getToken = async (args) => ({
    ok: true,
    customerId: 'Bench-BenchDonor-20261121120000',
    clientSessionId: args.clientSessionId!,
    customerKey: '5000001',
    gatewayKey: '1000001',
  });
}

let port: number;
let close: () => Promise<void>;

if (mode === 'fastify') {
  const app = await buildApp({ services });
  await app.listen({ port: 0, host: '127.0.0.1' });
  port = (app.server.address() as { port: number }).port;
  close = () => app.close();
} else {
  /** node-soap hands over the wrapper's children as an object; the operation table wants Params. */
  const toParams = (args: Record<string, unknown>): Params =>
    new Map(
      Object.entries(args ?? {})
        .filter(([k]) => !k.startsWith('$') && k !== 'attributes')
        .map(([k, v]) => [k.toLowerCase(), { name: k, values: typeof v === 'object' && v !== null ? [] : [String(v)], structured: typeof v === 'object' && v !== null }]),
    );
  const port_ = Object.fromEntries(
    OPERATIONS.map((op) => [
      op.name,
      async (args: Record<string, unknown>) => ({ [`${op.name}Result`]: resultRecord(await op.run(services.gateway, toParams(args), { ip: '127.0.0.1', userAgent: undefined })) }),
    ]),
  );
  const server = createServer((_req, res) => {
    res.statusCode = 404;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
  soap.listen(server, {
    path: GATEWAY_PATH,
    services: { Recurring: { RecurringSoap: port_, RecurringSoap12: port_ } },
    xml: wsdlDocument(config.soapNamespace, `http://127.0.0.1:${port}${GATEWAY_PATH}`),
  });
  close = () => new Promise<void>((resolve) => server.close(() => resolve()));
}

process.stdout.write(`READY ${port} ${JSON.stringify({ mode, service: process.env.GATEWAY_BENCH_SERVICE ?? 'real', store: store.kind, clientSessionId: session.ok ? session.clientSessionId : undefined, namespace: config.soapNamespace })}\n`);

const stop = async () => {
  await close();
  await store.close();
  process.exit(0);
};
process.on('SIGTERM', () => void stop());
process.on('SIGINT', () => void stop());
