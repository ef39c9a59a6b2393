import { buildApp } from './app.ts';
import { dropOutputWhenReaderGone } from './platform/closed-output.ts';
import { startBackgroundJobs } from './platform/jobs.ts';
import { systemClock } from './platform/clock.ts';
import { type Config, ConfigError, loadConfig } from './config.ts';
import { formatCutoff } from './domain/settlement-cutoff.ts';
import { type DemoProcessors, type StaleSecrets, banner } from './demo/banner.ts';
import { seedDemo } from './demo/seed.ts';
import { cryptoIds } from './platform/ids.ts';
import { createLogger, prettyDestination, prettyLogs, settleLogs, stdoutDestination } from './platform/logging.ts';
// Metrics and traces (issue 31).
import { Metrics } from './platform/metrics/metrics.ts';
import { type MetricsServer, startMetricsServer } from './platform/metrics/server.ts';
import { tracing } from './platform/tracing.ts';
import { recordDatabase } from './platform/data-dir-database.ts';
import { backgroundJobs, createServices, type Services } from './composition.ts';
import { DeliveryThread } from './delivery-thread/thread.ts';
import type { FastifyBaseLogger } from 'fastify';
import { type DataDirLock, DataDirLockedError, lockDataDir } from './platform/data-dir-lock.ts';
import { DatabaseUnavailableError, findError } from './platform/errors.ts';
import { openPostgres, openStore } from './platform/database/database.ts';
import { UNKNOWN_AFTER_MINUTES } from './modules/payments/processor-outcome.ts';
import { checkVaultKeysAtStart } from './modules/vault/key-check.ts';
import { CLOCK_SKEW_LIMIT_MS } from './modules/operations/clock-agreement.ts';

/** Several servers on one database must share SETTLEMENT_CUTOFF: each closes batches at its own. */
async function warnOfOtherCutoff(services: Services, log: FastifyBaseLogger): Promise<void> {
  try {
    const other = await services.settlement.otherCutoffInUse();
    if (other === undefined) return;
    log.warn(
      { recordedCutoff: other, settlementCutoff: formatCutoff(services.config.settlementCutoffMinutes) },
      'the latest scheduled settlement batch was closed at another cut-off than this SETTLEMENT_CUTOFF: if another server on this database has it, payments settle at both (some hours early, then only refundable); give every server the same',
    );
  } catch (err) {
    log.warn({ err }, 'could not compare SETTLEMENT_CUTOFF with the recorded batches');
  }
}

/**
 * A database restored from a backup or copied (src/modules/operations/database-identity-service.ts): settlement and
 * billing wait for an operator, who must first make sure the old copy is stopped and reconcile
 * with the processor. Said at start, with the steps.
 */
async function warnOfMovedDatabase(services: Services, log: FastifyBaseLogger): Promise<void> {
  try {
    const check = await services.databaseIdentity.checkAtStart();
    if (check.state !== 'moved') return;
    log.error(
      { recorded: check.recorded, current: check.current },
      'this database was restored or copied from another (its identity is not the one it recorded): settlement and billing wait until an operator confirms it. Stop every server of the old database, reconcile with the processor the charges, refunds and captures made after the backup (payments pending list), then run payments database confirm-move. The API serves meanwhile',
    );
  } catch (err) {
    log.warn({ err }, 'could not check whether this database was restored or copied');
  }
}

/**
 * Access tokens, pay link leases and settlement claims are timed by the clock of the server that
 * writes them and read by others': a server whose clock is off by minutes serves them too long or
 * too short, and its settlement and billing runs are skipped (src/platform/jobs.ts). Said at start.
 */
async function warnOfClockSkew(services: Services, log: FastifyBaseLogger): Promise<void> {
  try {
    const skew = await services.health.clockSkewMs();
    if (skew === null || Math.abs(skew) <= CLOCK_SKEW_LIMIT_MS) return;
    log.warn(
      { clockAheadOfDatabaseSeconds: Math.round(skew / 1000) },
      `this server's clock is more than ${CLOCK_SKEW_LIMIT_MS / 1000} s from the database server's: settlement, billing and the purges of expired sessions will not run here until they agree, and access tokens and pay link leases are timed wrongly; set both clocks by NTP`,
    );
  } catch (err) {
    log.warn({ err }, "could not compare this server's clock with the database server's");
  }
}

/**
 * Payments, refunds and voids whose outcome is unknown wait for an operator: a stop or a crash
 * between the processor's answer and its record leaves them so, and nothing else told (a
 * slow-processor audit). Said once at start; the command lists them.
 */
async function warnOfPendingOutcomes(services: Services, log: FastifyBaseLogger): Promise<void> {
  try {
    const found = await services.pendingPayments.list(UNKNOWN_AFTER_MINUTES);
    const count = found.payments.length + found.adjustments.length;
    if (count === 0) return;
    log.warn(
      { payments: found.payments.length, refundsAndVoids: found.adjustments.length },
      `payments, refunds or voids have waited ${UNKNOWN_AFTER_MINUTES} minutes or more for their outcome: look them up with payments pending list, then record each with payments pending resolve`,
    );
  } catch (err) {
    log.warn({ err }, 'could not look for payments whose outcome is unknown');
  }
}

/** The data directory lock while this process holds it: a start that fails releases it on the way out. */
let heldLock: DataDirLock | undefined;

/** How long a stop waits for buffered log lines to reach stdout before dropping them. */
const LOG_SETTLE_MS = 1_000;

async function main() {
  dropOutputWhenReaderGone(process.stdout);
  dropOutputWhenReaderGone(process.stderr);
  // A signal during the start is kept and acted on once the server listens, so that the stop
  // path (requests drained, the lock released) is the same whenever it comes; a second one
  // during the start stops at once, the lock released.
  let stopOn: ((signal: string) => void) | undefined;
  let signalled: string | undefined;
  const onSignal = (signal: string) => {
    if (stopOn) return stopOn(signal);
    if (signalled === undefined) return void (signalled = signal);
    heldLock?.release();
    process.exit(1);
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`Configuration error: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }

  let lock: DataDirLock | undefined;
  if (!config.databaseUrl) {
    try {
      lock = lockDataDir(config.dataDir, 'server');
      heldLock = lock;
    } catch (err) {
      if (err instanceof DataDirLockedError) {
        // 2, as for a configuration error and as the CLI answers: the operator's setup refuses the start.
        process.stderr.write(`${err.message}\n`);
        process.exit(2);
      }
      throw err;
    }
  }

  const store = await openStore(config);
  // Operators' commands run on this data directory must use the same database (data-dir-database.ts).
  recordDatabase(config.dataDir, config.databaseUrl);
  // Transaction reports read from the replica when there is one (its schema is the primary's).
  const reportStore = config.databaseReplicaUrl ? openPostgres(config.databaseReplicaUrl, config.databasePoolSize) : undefined;
  const terminal = process.stdout.isTTY === true;
  const pretty = prettyLogs(config.logFormat, { nodeEnv: config.nodeEnv, terminal });
  const logDestination = pretty ? await prettyDestination({ colorize: terminal }) : stdoutDestination();
  const metrics = config.metrics ? new Metrics() : undefined;
  // PGlite's one connection is in this thread: its delivery stays in the event loop.
  const notificationThread = config.notificationWorker && store.kind === 'postgres' ? new DeliveryThread({ prettyLogs: pretty, colorize: terminal }) : undefined;
  const services = createServices({ store, reportStore, clock: systemClock, ids: cryptoIds, config, log: createLogger(config.logLevel, logDestination), metrics, notificationThread });
  const credentials = config.demo ? await seedDemo(services, config.dataDir) : undefined;
  const app = await buildApp({ services });
  await checkVaultKeysAtStart(services, app.log);
  await warnOfOtherCutoff(services, app.log);
  await warnOfPendingOutcomes(services, app.log);
  await warnOfClockSkew(services, app.log);
  await warnOfMovedDatabase(services, app.log);
  await app.listen({ port: config.port, host: config.host });
  const metricsServer = metrics && config.metrics ? await serveMetrics(metrics, config.metrics, config.host, app.log) : undefined;
  const jobs = startBackgroundJobs(backgroundJobs(services), app.log, {
    clockSkewMs: () => services.health.clockSkewMs(),
    clockSkewLimitMs: CLOCK_SKEW_LIMIT_MS,
    databaseConfirmed: () => services.databaseIdentity.confirmed(),
  });
  const processors: DemoProcessors = new Map();
  const staleSecrets: StaleSecrets = { partners: new Map(), gatewayPasswords: new Set() };
  const own = credentials && !('elsewhere' in credentials) ? credentials : undefined;
  for (const p of own?.partners ?? []) {
    processors.set(p.ClientId, (await services.partners.listProcessors(p.ClientId)).map((r) => ({ id: r.id, mkey: r.mkey })));
    // The file keeps what first start made; an operator may have rotated them since (an operator audit found the banner printing dead secrets).
    staleSecrets.partners.set(p.ClientId, {
      secret: !(await services.partners.verifyClientSecret(p.ClientId, p.ClientSecret)),
      apiKey: !(await services.partners.verifyApiKey(p.ClientId, p.ApiKey)),
    });
  }
  for (const u of own?.gatewayUsers ?? []) {
    // 'disabled' is said only for the right password: the password itself is still the valid one.
    const login = await services.gatewayUsers.authenticate(u.Username, u.Password);
    if (!login.ok && login.reason === 'invalid') staleSecrets.gatewayPasswords.add(u.Username);
  }
  process.stdout.write(banner(config, credentials, processors, staleSecrets, { secrets: process.stdout.isTTY === true }));

  let stopping = false;
  // After close() Node no longer times out half-sent requests: one slow or stuck client kept a
  // stopping server (and on PGlite its data directory) forever (an operator audit found it).
  const closeOpenConnections = (why: string) => {
    app.log.warn({ why }, 'shutting down: closing the connections still open');
    app.server.closeAllConnections();
  };
  // The stop is bounded: a billing run finishing its batch against a slow or stuck processor held
  // a stopping server (its leases, its pool, on PGlite its data directory) for minutes or for
  // ever, whatever the signals (a slow-processor audit). Past the grace and one processor deadline
  // (every call has ended by then), or 5 s after a second signal, it exits as after a crash:
  // payments still at the processor stay Pending, billing leases lapse and are reconciled.
  const exitNow = (why: string) => {
    app.log.error({ why }, 'stopping now, with work still in progress: it is left as after a crash (Pending payments: payments pending list; billing leases lapse in 10 minutes)');
    lock?.release();
    void settleLogs(LOG_SETTLE_MS).finally(() => process.exit(1));
  };
  const shutdown = async (signal: string) => {
    if (stopping) {
      setTimeout(() => exitNow(`5 s after a second ${signal}`), 5_000).unref();
      return closeOpenConnections(`second ${signal}`);
    }
    stopping = true;
    app.log.info({ signal }, 'shutting down: draining requests');
    setTimeout(() => closeOpenConnections(`${config.shutdownGraceMs / 1000} s grace over`), config.shutdownGraceMs).unref();
    const limitMs = config.shutdownGraceMs + config.processorTimeoutMs + 5_000;
    setTimeout(() => exitNow(`${limitMs / 1000} s after ${signal} (SHUTDOWN_GRACE + PROCESSOR_TIMEOUT + 5 s)`), limitMs).unref();
    try {
      // The billing run winds up at once (it takes no new profile), while requests drain.
      const jobsStopped = jobs.stop();
      await app.close();
      await jobsStopped;
      await metricsServer?.close();
      await writeKeptOutcomes(services, app.log);
      await reportStore?.close();
      await store.close();
      await tracing()?.shutdown().catch((err: unknown) => app.log.warn({ err }, 'the last spans could not be sent'));
    } finally {
      lock?.release();
    }
    app.log.info({ signal }, 'stopped');
    await settleLogs(LOG_SETTLE_MS);
    process.exit(0);
  };
  stopOn = (signal) => void shutdown(signal);
  if (signalled) stopOn(signalled);
}

/**
 * GET /metrics on METRICS_PORT. A port the operator set that cannot be had stops the start (a
 * deployment that expects its metrics must not run without them); the development default only
 * warns: a second service on the same machine starts without them.
 */
async function serveMetrics(metrics: Metrics, settings: { port: number; explicit: boolean }, host: string, log: FastifyBaseLogger): Promise<MetricsServer | undefined> {
  try {
    const server = await startMetricsServer(metrics, { port: settings.port, host });
    log.info({ metricsPort: server.port }, `metrics at http://${host.includes(':') ? `[${host}]` : host}:${server.port}/metrics`);
    return server;
  } catch (err) {
    if (settings.explicit) throw new Error(`METRICS_PORT ${settings.port} could not be listened on (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`, { cause: err });
    log.warn({ metricsPort: settings.port, errorCode: (err as NodeJS.ErrnoException).code }, 'the metrics are not served: their default port could not be listened on (set METRICS_PORT)');
    return undefined;
  }
}

/** Outcomes kept while the database was unavailable get a last chance to be written; what is left is said. */
async function writeKeptOutcomes(services: Services, log: FastifyBaseLogger): Promise<void> {
  if (services.pendingWrites.size === 0) return;
  await services.pendingWrites.writeAll().catch(() => 0);
  if (services.pendingWrites.size > 0) {
    log.error({ waiting: services.pendingWrites.size }, 'outcomes the database could not take are left unwritten: the payments, refunds or voids stay pending (payments pending list)');
  }
}

main().catch((err) => {
  // Left held, the next start would take it over only because this process is gone: say what failed and free it now.
  heldLock?.release();
  const unavailable = findError(err, DatabaseUnavailableError);
  // The driver's own words ("connect ECONNREFUSED 127.0.0.1:5432"), after what they are about.
  const cause = unavailable?.cause ?? err;
  const reason = cause instanceof Error ? cause.message : String(cause);
  const what = unavailable ? `its database is not reachable (${process.env.DATABASE_URL ? 'DATABASE_URL' : 'PGlite'}): ` : '';
  process.stderr.write(`The service could not start: ${what}${reason}\n`);
  process.exit(1);
});
