import type { Clock } from './platform/clock.ts';
import type { Config } from './config.ts';
import type { Ids } from './platform/ids.ts';
import type { Store } from './platform/database/database.ts';
import { defaultProcessors, type ProcessorRegistry } from './processors/registry.ts';
import { CharityImportService } from './modules/charities/import-service.ts';
import { CharityService } from './modules/charities/search-service.ts';
import { FeeService } from './modules/fees/fee-service.ts';
import { GatewayService } from './modules/gateway/gateway-service.ts';
import { GatewaySessionService } from './modules/partners/gateway-session-service.ts';
import { GatewayUserService } from './modules/gateway/gateway-user-service.ts';
import { PartnerService } from './modules/partners/partner-service.ts';
import { BillingService } from './modules/recurring/billing-service.ts';
import { PaymentService } from './modules/payments/payment-service.ts';
import { PaymentRepository } from './modules/payments/payment-repository.ts';
import { PendingWrites } from './platform/pending-writes.ts';
import { PendingPaymentService } from './modules/payments/held-outcome-service.ts';
import { HeldOutcomeRepository } from './modules/payments/held-outcome-repository.ts';
import { PayLinkService } from './modules/paylinks/paylink-service.ts';
import { PayLinkRepository } from './modules/paylinks/paylink-repository.ts';
import { PayLinkResultRepository } from './modules/paylinks/result-repository.ts';
import { PayLinkCheckoutService } from './modules/paylinks/checkout-service.ts';
import { PayLinkResultService } from './modules/paylinks/result-service.ts';
import { ProcessorService } from './modules/partners/processor-service.ts';
import { ReferenceRepository } from './modules/partners/reference-repository.ts';
import { ReferenceService } from './modules/partners/reference-service.ts';
import { RecurringProfileService } from './modules/recurring/profile-service.ts';
import { RefundVoidService } from './modules/adjustments/refund-void-service.ts';
import { AdjustmentRepository } from './modules/adjustments/adjustment-repository.ts';
import { SessionService } from './modules/partners/session-service.ts';
import { SettlementService } from './modules/adjustments/settlement-service.ts';
import { SettlementRepository } from './modules/adjustments/settlement-repository.ts';
import { TokenService } from './modules/vault/token-service.ts';
import { type Vault, vaultFromConfig } from './modules/vault/vault.ts';
import { DatabaseIdentityService } from './modules/operations/database-identity-service.ts';
import type { RootLogger } from './platform/logging.ts';
import type { BackgroundJob } from './platform/jobs.ts';
import { billingJob } from './modules/recurring/billing-job.ts';
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
  processorAdapters: ProcessorRegistry;
  fees: FeeService;
  vault: Vault;
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
  /** Prometheus metrics (METRICS_PORT), when on: the HTTP server and later capabilities add theirs to it. */
  metrics?: Metrics;
}

export function createServices(deps: { store: Store; clock: Clock; ids: Ids; config: Config; log: RootLogger; vault?: Vault; metrics?: Metrics }): Services {
  const { store, clock, ids, log } = deps;
  const serviceMetrics = deps.metrics && new ServiceMetrics(deps.metrics);
  // VAULT_KEY, or the key file in DATA_DIR (created on first use); tests' config carries a key.
  const vault = deps.vault ?? vaultFromConfig(deps.config, clock);
  const tokens = new TokenService(store.db, clock, ids, vault);
  const gatewaySessions = new GatewaySessionService(store.db, clock, ids, deps.config.gatewaySessionTtlMs);
  const gatewayUsers = new GatewayUserService(store.db, clock, ids, gatewaySessions);
  const gateway = new GatewayService({ users: gatewayUsers, sessions: gatewaySessions, tokens, clock, loginAttemptsPerMinute: deps.config.gatewayLoginRateLimitPerMinute });
  const sessions = new SessionService(store.db, clock, ids);
  const partners = new PartnerService(store.db, clock, ids, sessions);
  const processors = new ProcessorService(store.db);
  const processorAdapters = instrumentProcessors(defaultProcessors({ simulatorLatencyMs: deps.config.simulatorLatencyMs, timeoutMs: deps.config.processorTimeoutMs }), {
    metrics: serviceMetrics,
    tracing: tracing(),
  });
  const fees = new FeeService(store.db, clock, partners);
  const references = new ReferenceService({ repository: new ReferenceRepository(store.sql), clock });
  const pendingWrites = new PendingWrites(log);
  const payments = new PaymentService({ repository: new PaymentRepository(store), clock, ids, log, fees, adapters: processorAdapters, tokens, references, pendingWrites });
  const recurringProfiles = new RecurringProfileService({ db: store.db, clock, ids, tokens, processors, fees });
  const billing = new BillingService({ store, clock, ids, log, payments, retryDays: deps.config.billingRetryDays });
  const refundsVoids = new RefundVoidService({ repository: new AdjustmentRepository(store), clock, ids, log, processors, adapters: processorAdapters, pendingWrites });
  const pendingPayments = new PendingPaymentService({ repository: new HeldOutcomeRepository(store.sql), clock, refundsVoids });
  const settlement = new SettlementService({ repository: new SettlementRepository(store), clock, ids, cutoffMinutes: deps.config.settlementCutoffMinutes, adapters: processorAdapters, processorTimeoutMs: deps.config.processorTimeoutMs });
  const { publicBaseUrl, providerName, providerUrl } = deps.config;
  const payLinks = new PayLinkService({ repository: new PayLinkRepository(store.db), clock, ids, fees, references, partners, tokens, site: { publicBaseUrl, providerName, providerUrl } });
  const payLinkResults = new PayLinkResultService({ repository: new PayLinkResultRepository(store.db), clock, ids, payments, tokens });
  const payLinkCheckout = new PayLinkCheckoutService({ clock, log, links: payLinks, results: payLinkResults, payments, tokens, fees, voids: refundsVoids, recurring: recurringProfiles });
  const charities = new CharityService(store, { clock });
  const charityImport = new CharityImportService(store, deps.config.databaseUrl);
  const databaseIdentity = new DatabaseIdentityService(store.db);
  if (serviceMetrics) {
    observeDatabase(store, serviceMetrics.metrics);
    meterPayments(payments, serviceMetrics);
    meterRefundsVoids(refundsVoids, serviceMetrics);
    meterSettlement(settlement, serviceMetrics);
    meterBilling(billing, serviceMetrics);
    meterCharitySearch(charities, serviceMetrics);
    observeHeldOutcomes(pendingPayments, clock, serviceMetrics);
  }
  return { ...deps, sessions, partners, processors, references, pendingWrites, processorAdapters, fees, vault, tokens, gatewaySessions, gatewayUsers, gateway, payments, pendingPayments, refundsVoids, settlement, payLinks, payLinkResults, payLinkCheckout, charities, charityImport, recurringProfiles, billing, databaseIdentity };
}

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
    // Closes the settlement batch once the daily cut-off (SETTLEMENT_CUTOFF) has passed on the
    // injected clock; every process runs it, the batch of a cut-off is closed once.
    { name: 'settlement', everyMs: 60 * 1000, needsAgreedClock: true, needsConfirmedDatabase: true, run: () => services.settlement.settleIfCutoffPassed() },
    // Recurring billing (BILLING_WORKER): any number of processes may run it; each bill date is charged once.
    ...(services.config.billingWorker ? [billingJob(services.billing, services.config.billingIntervalMs)] : []),
  ];
}
