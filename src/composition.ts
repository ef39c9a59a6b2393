import { type Clock, systemClock } from './platform/clock.ts';
import type { Config } from './config.ts';
import { cryptoIds, type Ids } from './platform/ids.ts';
import { openStore, type Store } from './platform/database/database.ts';
import { defaultProcessors, type ProcessorRegistry } from './processors/registry.ts';
import { CharityImportRepository } from './modules/charities/import-repository.ts';
import { CharityImportService } from './modules/charities/import-service.ts';
import { CharitySearchRepository } from './modules/charities/search-repository.ts';
import { CharityService } from './modules/charities/search-service.ts';
import { FeeService } from './modules/fees/fee-service.ts';
import { GatewayService } from './modules/gateway/gateway-service.ts';
import { GatewaySessionService } from './modules/partners/gateway-session-service.ts';
import { GatewayUserRepository } from './modules/gateway/gateway-user-repository.ts';
import { GatewayUserService } from './modules/gateway/gateway-user-service.ts';
import { ContractRepository } from './modules/partners/contract-repository.ts';
import { PartnerRepository } from './modules/partners/partner-repository.ts';
import { PartnerService } from './modules/partners/partner-service.ts';
import { BillingRepository } from './modules/recurring/billing-repository.ts';
import { BillingService } from './modules/recurring/billing-service.ts';
import { PaymentService } from './modules/payments/payment-service.ts';
import { PaymentRepository } from './modules/payments/payment-repository.ts';
import { PendingWrites } from './platform/pending-writes.ts';
import { PendingPaymentService } from './modules/payments/held-outcome-service.ts';
import { HeldOutcomeRepository } from './modules/payments/held-outcome-repository.ts';
import { HeldOutcomeResolution } from './modules/payments/held-outcome-resolution.ts';
import { PayLinkService } from './modules/paylinks/paylink-service.ts';
import { PayLinkRepository } from './modules/paylinks/paylink-repository.ts';
import { PayLinkResultRepository } from './modules/paylinks/result-repository.ts';
import { PayLinkCheckoutService } from './modules/paylinks/checkout-service.ts';
import { PayLinkResultService } from './modules/paylinks/result-service.ts';
import { ProcessorService } from './modules/partners/processor-service.ts';
import { ReferenceRepository } from './modules/partners/reference-repository.ts';
import { ReferenceService } from './modules/partners/reference-service.ts';
import { RecurringProfileRepository } from './modules/recurring/profile-repository.ts';
import { RecurringProfileService } from './modules/recurring/profile-service.ts';
import { RefundVoidService } from './modules/adjustments/refund-void-service.ts';
import { AdjustmentRepository } from './modules/adjustments/adjustment-repository.ts';
import { SessionRepository } from './modules/partners/session-repository.ts';
import { SessionService } from './modules/partners/session-service.ts';
import { SettlementService } from './modules/adjustments/settlement-service.ts';
import { SettlementRepository } from './modules/adjustments/settlement-repository.ts';
import { TokenRepository } from './modules/vault/token-repository.ts';
import { TokenService } from './modules/vault/token-service.ts';
import { VaultService } from './modules/vault/vault-service.ts';
import { type Vault, vaultFromConfig } from './modules/vault/vault.ts';
import { DatabaseIdentityService } from './modules/operations/database-identity-service.ts';
import { HealthService } from './modules/operations/health-service.ts';
import { InstallationService } from './modules/operations/installation-service.ts';
import { OperationsRepository } from './modules/operations/operations-repository.ts';
import type { RootLogger } from './platform/logging.ts';
import type { BackgroundJob } from './platform/jobs.ts';
import { billingJob } from './modules/recurring/billing-job.ts';
import { IdempotencyRepository } from './modules/idempotency/idempotency-repository.ts';
import { IdempotencyService } from './modules/idempotency/idempotency-service.ts';
import { ProcessorAccountRepository } from './modules/processor-accounts/processor-account-repository.ts';
import { ProcessorAccountService } from './modules/processor-accounts/processor-account-service.ts';
import { ProcessorCredentialStore } from './modules/processor-accounts/processor-credential-store.ts';
import { type SimulatorLedger, SqlSimulatorLedger } from './processors/simulator-ledger.ts';
import { ReportRepository } from './modules/reports/report-repository.ts';
import { ReportService } from './modules/reports/report-service.ts';
import { NotificationConfigRepository } from './modules/notifications/config-repository.ts';
import { NotificationConfigService } from './modules/notifications/config-service.ts';
import { NotificationOutboxRepository } from './modules/notifications/outbox-repository.ts';
import { NotificationService } from './modules/notifications/notification-service.ts';
import { NotificationDeliveryWorker } from './modules/notifications/delivery-worker.ts';
import { notificationJob } from './modules/notifications/delivery-job.ts';
import { HttpSender } from './modules/notifications/http-sender.ts';
import type { DeliveryThread } from './delivery-thread/thread.ts';
import { DEFAULT_RETRY_SCHEDULE, type RetrySchedule } from './modules/notifications/retry-schedule.ts';
import { meterNotifications } from './modules/metering/notification-metrics.ts';
// Metrics and traces (issue 31): decorators of the services, none when both are off.
import type { Metrics } from './platform/metrics/metrics.ts';
import { observeDatabase } from './platform/metrics/database.ts';
import { tracing } from './platform/tracing.ts';
import { ServiceMetrics } from './modules/metering/service-metrics.ts';
import { instrumentProcessors } from './modules/metering/processor-calls.ts';
import { meterBilling, meterCharitySearch, meterPayments, meterRefundsVoids, meterSettlement, observeHeldOutcomes } from './modules/metering/metered-services.ts';

/** Everything a surface needs, built once per process (or per test). */
export interface Services {
  store: Store;
  clock: Clock;
  ids: Ids;
  config: Config;
  /** Where the services log (the server's logger; the CLI's writes to stderr). */
  log: RootLogger;
  sessions: SessionService;
  partners: PartnerService;
  processors: ProcessorService;
  references: ReferenceService;
  /** Outcomes the database could not take when they were made, written again by a background job. */
  pendingWrites: PendingWrites;
  /** Held payments, refunds and voids resolved from their processors' records. */
  heldOutcomeResolution: HeldOutcomeResolution;
  processorAdapters: ProcessorRegistry;
  /** Processors with their acquirer's credentials (`payments processors`). */
  processorAccounts: ProcessorAccountService;
  fees: FeeService;
  /** The vault itself: the composition root's and tests'; edges use `vaultService`. */
  vault: Vault;
  vaultService: VaultService;
  tokens: TokenService;
  gatewaySessions: GatewaySessionService;
  gatewayUsers: GatewayUserService;
  gateway: GatewayService;
  payments: PaymentService;
  pendingPayments: PendingPaymentService;
  recurringProfiles: RecurringProfileService;
  billing: BillingService;
  charities: CharityService;
  charityImport: CharityImportService;
  refundsVoids: RefundVoidService;
  settlement: SettlementService;
  payLinks: PayLinkService;
  payLinkResults: PayLinkResultService;
  payLinkCheckout: PayLinkCheckoutService;
  databaseIdentity: DatabaseIdentityService;
  /** Whether the database answers, and whether its clock agrees with this process's. */
  health: HealthService;
  /** Facts the installation records about itself, and a lock the processes of one database take turns on. */
  installation: InstallationService;
  idempotency: IdempotencyService;
  reports: ReportService;
  /** Partners' notification URLs and signing secrets. */
  notificationConfigs: NotificationConfigService;
  /** Notification histories and redeliveries. */
  notifications: NotificationService;
  /** Delivers the outbox (NOTIFICATION_WORKER runs it in the server; the CLI runs a pass). */
  notificationWorker: NotificationDeliveryWorker;
  /** The server on PostgreSQL: NOTIFICATION_WORKER delivers on this thread instead of with notificationWorker. */
  notificationThread?: DeliveryThread;
  /** Prometheus metrics (METRICS_PORT), when on: the HTTP server and later capabilities add theirs to it. */
  metrics?: Metrics;
}

/**
 * `reportStore`: where transaction reports read (a read replica, DATABASE_REPLICA_URL); the
 * store when there is none. The caller opens and closes it.
 */
export function createServices(deps: {
  store: Store;
  reportStore?: Store;
  clock: Clock;
  ids: Ids;
  config: Config;
  log: RootLogger;
  vault?: Vault;
  /** false: the simulator keeps no ledger (and cannot look anything up): `npm run bench -- simulator-ledger` compares. */
  simulatorLedger?: boolean;
  metrics?: Metrics;
  /** Tests: a faster retry schedule than the configured one. */
  notificationRetrySchedule?: RetrySchedule;
  /** The server on PostgreSQL: delivery runs on this thread, not in the event loop (NOTIFICATION_WORKER). */
  notificationThread?: DeliveryThread;
}): Services {
  const { store, clock, ids, log } = deps;
  const serviceMetrics = deps.metrics && new ServiceMetrics(deps.metrics);
  // VAULT_KEY, or the key file in DATA_DIR (created on first use); tests' config carries a key.
  const vault = deps.vault ?? vaultFromConfig(deps.config, clock);
  const tokens = new TokenService({ repository: new TokenRepository(store.db), clock, ids, vault });
  const vaultService = new VaultService({ vault, tokens, clock });
  const sessionRepository = new SessionRepository(store.db);
  const partnerRepository = new PartnerRepository(store.db);
  const references = new ReferenceService({ repository: new ReferenceRepository(store.sql), clock });
  const gatewaySessions = new GatewaySessionService({ sessions: sessionRepository, clock, ids, ttlMs: deps.config.gatewaySessionTtlMs });
  const gatewayUsers = new GatewayUserService({ repository: new GatewayUserRepository(store.db), clock, ids, sessions: gatewaySessions });
  const gateway = new GatewayService({ users: gatewayUsers, sessions: gatewaySessions, tokens, clock, loginAttemptsPerMinute: deps.config.gatewayLoginRateLimitPerMinute });
  const sessions = new SessionService({ sessions: sessionRepository, partners: partnerRepository, clock, ids });
  const partners = new PartnerService({ partners: partnerRepository, contracts: new ContractRepository(store.db), references, sessions, clock, ids });
  const processors = new ProcessorService({ references });
  // The simulator records what it does (its look-ups read it); Authorize.Net processors' credentials come from the vault.
  const simulatorLedger =
    deps.simulatorLedger === false
      ? undefined
      : new SqlSimulatorLedger({ sql: store.sql, clock, onLost: (count, err) => log.error({ count, errorName: (err as Error)?.name }, "the simulator's ledger could not record its transactions: their look-ups will say they were never made") });
  if (simulatorLedger) drainBeforeClose(store, simulatorLedger);
  const processorAccountRepository = new ProcessorAccountRepository(store.db);
  const processorCredentials = new ProcessorCredentialStore({ repository: processorAccountRepository, vault: vaultService, clock });
  const processorAdapters = instrumentProcessors(
    defaultProcessors({
      simulatorLatencyMs: deps.config.simulatorLatencyMs,
      timeoutMs: deps.config.processorTimeoutMs,
      simulatorLedger,
      authorizeNet: { accounts: processorCredentials, sandboxUrl: deps.config.authorizeNetSandboxUrl },
    }),
    { metrics: serviceMetrics, tracing: tracing() },
  );
  const processorAccounts = new ProcessorAccountService({ repository: processorAccountRepository, credentials: processorCredentials, partners, processors, adapters: processorAdapters, clock });
  const fees = new FeeService({ partners, references, tokens, clock });
  const pendingWrites = new PendingWrites(log);
  const payments = new PaymentService({ repository: new PaymentRepository(store), clock, ids, log, fees, adapters: processorAdapters, tokens, references, pendingWrites });
  const recurringProfiles = new RecurringProfileService({ repository: new RecurringProfileRepository(store.db), clock, ids, tokens, processors, references, fees });
  const billing = new BillingService({ repository: new BillingRepository(store), clock, ids, log, payments, retryDays: deps.config.billingRetryDays });
  const refundsVoids = new RefundVoidService({ repository: new AdjustmentRepository(store), clock, ids, log, processors, adapters: processorAdapters, pendingWrites, tokens });
  const heldOutcomes = new HeldOutcomeRepository(store.sql);
  const pendingPayments = new PendingPaymentService({ repository: heldOutcomes, clock, refundsVoids });
  const heldOutcomeResolution = new HeldOutcomeResolution({
    repository: heldOutcomes,
    pending: pendingPayments,
    adapters: processorAdapters,
    pendingWrites,
    clock,
    log,
    inFlightMs: deps.config.processorTimeoutMs + IN_FLIGHT_MARGIN_MS,
  });
  const settlement = new SettlementService({ repository: new SettlementRepository(store), clock, ids, cutoffMinutes: deps.config.settlementCutoffMinutes, adapters: processorAdapters, processorTimeoutMs: deps.config.processorTimeoutMs });
  const { publicBaseUrl, providerName, providerUrl } = deps.config;
  const payLinks = new PayLinkService({ repository: new PayLinkRepository(store.db), clock, ids, fees, references, partners, tokens, site: { publicBaseUrl, providerName, providerUrl } });
  const payLinkResults = new PayLinkResultService({ repository: new PayLinkResultRepository(store.db), clock, ids, payments, tokens });
  const payLinkCheckout = new PayLinkCheckoutService({ clock, log, links: payLinks, results: payLinkResults, payments, tokens, fees, voids: refundsVoids, recurring: recurringProfiles });
  const charities = new CharityService({ repository: new CharitySearchRepository(store.sql), clock });
  const charityImport = new CharityImportService({ repository: new CharityImportRepository(store, deps.config.databaseUrl) });
  const operations = new OperationsRepository(store);
  const databaseIdentity = new DatabaseIdentityService({ repository: operations });
  const health = new HealthService({ repository: operations, clock });
  // A running request is in flight until the processor's deadline has passed, and a margin for its writes.
  const idempotency = new IdempotencyService({ repository: new IdempotencyRepository(store.sql), clock, ids, log, ttlMs: deps.config.idempotencyTtlMs, leaseMs: deps.config.processorTimeoutMs + 10_000 });
  const installation = new InstallationService({ repository: operations });
  if (serviceMetrics) {
    observeDatabase(store, serviceMetrics.metrics);
    meterPayments(payments, serviceMetrics);
    meterRefundsVoids(refundsVoids, serviceMetrics);
    meterSettlement(settlement, serviceMetrics);
    meterBilling(billing, serviceMetrics);
    meterCharitySearch(charities, serviceMetrics);
    observeHeldOutcomes(pendingPayments, clock, serviceMetrics);
  }
  const notificationPolicy = { allowHttp: deps.config.nodeEnv !== 'production', allowPrivate: deps.config.notificationAllowPrivate };
  const notificationSender = new HttpSender({ policy: notificationPolicy, timeoutMs: deps.config.notificationTimeoutMs, maxSockets: deps.config.notificationConcurrency });
  const notificationConfigs = new NotificationConfigService({ repository: new NotificationConfigRepository(store.sql), vault: vaultService, clock, ids, policy: notificationPolicy, sender: notificationSender });
  const outbox = new NotificationOutboxRepository(store.sql);
  const notificationWorker = new NotificationDeliveryWorker({
    outbox,
    configs: notificationConfigs,
    sender: notificationSender,
    log,
    options: {
      concurrency: deps.config.notificationConcurrency,
      perConfig: Math.max(1, Math.ceil(deps.config.notificationConcurrency / 4)),
      // A claim outlives its request's timeout by a margin for recording the outcome.
      leaseMs: deps.config.notificationTimeoutMs + 5_000,
      schedule: deps.notificationRetrySchedule ?? { ...DEFAULT_RETRY_SCHEDULE, firstMs: deps.config.notificationFirstRetryMs },
      // PostgreSQL wakes the worker at commits (LISTEN, at most every 50 ms: migration 0024); the
      // poll catches a change committed after the wake's claim. PGlite has only the poll.
      pollMs: store.kind === 'postgres' ? 250 : 100,
      waitingMs: 5 * 60_000,
    },
  });
  const delivery = deps.notificationThread ?? notificationWorker;
  const notifications = new NotificationService({ outbox, clock, retentionDays: deps.config.notificationRetentionDays, wake: () => delivery.wake() });
  if (deps.metrics) meterNotifications(deps.metrics, delivery, notifications);
  const closeStore = store.close.bind(store);
  store.close = async () => {
    notificationSender.close();
    await closeStore();
  };
  const reportStore = deps.reportStore ?? store;
  const reports = new ReportService({
    repository: new ReportRepository({ sql: reportStore.sql, openCursor: reportStore.openCursor?.bind(reportStore), copyOut: reportStore.copyOut?.bind(reportStore) }),
    clock,
    log,
    exportConcurrency: deps.config.reportExportConcurrency,
    exportMaxMs: deps.config.reportExportMaxMinutes * 60_000,
  });
  return { ...deps, notificationConfigs, notifications, notificationWorker, idempotency, reports, sessions, partners, processors, references, pendingWrites, heldOutcomeResolution, processorAdapters, processorAccounts, fees, vault, vaultService, tokens, gatewaySessions, gatewayUsers, gateway, payments, pendingPayments, refundsVoids, settlement, payLinks, payLinkResults, payLinkCheckout, charities, charityImport, recurringProfiles, billing, databaseIdentity, health, installation };
}

/**
 * Opens the configured database (bringing its schema up to date) and builds the services on it,
 * with the system clock and ids: for a process that runs commands (the CLI). `close` closes the
 * database.
 */
export async function openServices(config: Config, log: RootLogger): Promise<Services & { close(): Promise<void> }> {
  const store = await openStore(config);
  try {
    return { ...createServices({ store, clock: systemClock, ids: cryptoIds, config, log }), close: () => store.close() };
  } catch (err) {
    await store.close();
    throw err;
  }
}

/** The simulator's ledger is written in the background: what it holds is written before the database closes. */
function drainBeforeClose(store: Store, ledger: SimulatorLedger): void {
  const close = store.close.bind(store);
  store.close = async () => {
    await ledger.drain();
    await close();
  };
}

/** How long past its processor's deadline a request may still be writing its outcome. */
const IN_FLIGHT_MARGIN_MS = 10_000;

/** The jobs a server process runs beside the HTTP server. */
export function backgroundJobs(services: Services): BackgroundJob[] {
  return [
    // The purges too: their cut-offs are this process's clock, and a server a day ahead would
    // delete every live session of the database, every server's.
    { name: 'purge expired access tokens', everyMs: 60 * 60 * 1000, needsAgreedClock: true, run: () => services.sessions.purgeExpired() },
    { name: 'purge expired gateway sessions', everyMs: 60 * 60 * 1000, needsAgreedClock: true, run: () => services.gatewaySessions.purgeExpired() },
    { name: 'purge old pay link responseTokens', everyMs: 60 * 60 * 1000, needsAgreedClock: true, run: () => services.payLinkResults.prune() },
    // Outcomes the processor gave that the database could not take at the time (PendingWrites).
    { name: 'write outcomes kept while the database was unavailable', everyMs: 2_000, run: () => services.pendingWrites.writeAll() },
    // Held outcomes from the processors' records; it records by this process's clock (an item's age).
    { name: 'resolve held outcomes from the processors', everyMs: 30_000, needsAgreedClock: true, needsConfirmedDatabase: true, run: () => services.heldOutcomeResolution.run() },
    { name: 'purge expired idempotency keys', everyMs: 60 * 60 * 1000, needsAgreedClock: true, run: () => services.idempotency.purgeExpired() },
    { name: 'purge notifications past their retention', everyMs: 60 * 60 * 1000, needsAgreedClock: true, run: () => services.notifications.purgeEnded() },
    // Closes the settlement batch once the daily cut-off (SETTLEMENT_CUTOFF) has passed on the
    // injected clock; every process runs it, the batch of a cut-off is closed once.
    { name: 'settlement', everyMs: 60 * 1000, needsAgreedClock: true, needsConfirmedDatabase: true, run: () => services.settlement.settleIfCutoffPassed() },
    // Recurring billing (BILLING_WORKER): any number of processes may run it; each bill date is charged once.
    ...(services.config.billingWorker ? [billingJob(services.billing, services.config.billingIntervalMs)] : []),
    // Notification delivery (NOTIFICATION_WORKER): any number of processes share the outbox.
    ...(services.config.notificationWorker ? [services.notificationThread?.job() ?? notificationJob(services.notificationWorker, services.store)] : []),
  ];
}
