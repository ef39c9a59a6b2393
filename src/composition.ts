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
import { PendingPaymentService } from './modules/payments/held-outcome-service.ts';
import { PayLinkService } from './modules/paylinks/paylink-service.ts';
import { PayLinkCheckoutService } from './modules/paylinks/checkout-service.ts';
import { PayLinkResultService } from './modules/paylinks/result-service.ts';
import { ProcessorService } from './modules/partners/processor-service.ts';
import { ReferenceRepository } from './modules/partners/reference-repository.ts';
import { ReferenceService } from './modules/partners/reference-service.ts';
import { RecurringProfileService } from './modules/recurring/profile-service.ts';
import { RefundVoidService } from './modules/adjustments/refund-void-service.ts';
import { SessionService } from './modules/partners/session-service.ts';
import { SettlementService } from './modules/adjustments/settlement-service.ts';
import { TokenService } from './modules/vault/token-service.ts';
import { type Vault, vaultFromConfig } from './modules/vault/vault.ts';
import { DatabaseIdentityService } from './modules/operations/database-identity-service.ts';
import type { RootLogger } from './platform/logging.ts';
import type { BackgroundJob } from './platform/jobs.ts';
import { billingJob } from './modules/recurring/billing-job.ts';
import { ReportRepository } from './modules/reports/report-repository.ts';
import { ReportService } from './modules/reports/report-service.ts';

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
  reports: ReportService;
}

/**
 * `reportStore`: where transaction reports read (a read replica, DATABASE_REPLICA_URL); the
 * store when there is none. The caller opens and closes it.
 */
export function createServices(deps: { store: Store; clock: Clock; ids: Ids; config: Config; log: RootLogger; vault?: Vault; reportStore?: Store }): Services {
  const { store, clock, ids, log } = deps;
  // VAULT_KEY, or the key file in DATA_DIR (created on first use); tests' config carries a key.
  const vault = deps.vault ?? vaultFromConfig(deps.config, clock);
  const tokens = new TokenService(store.db, clock, ids, vault);
  const gatewaySessions = new GatewaySessionService(store.db, clock, ids, deps.config.gatewaySessionTtlMs);
  const gatewayUsers = new GatewayUserService(store.db, clock, ids, gatewaySessions);
  const gateway = new GatewayService({ users: gatewayUsers, sessions: gatewaySessions, tokens, clock, loginAttemptsPerMinute: deps.config.gatewayLoginRateLimitPerMinute });
  const sessions = new SessionService(store.db, clock, ids);
  const partners = new PartnerService(store.db, clock, ids, sessions);
  const processors = new ProcessorService(store.db);
  const processorAdapters = defaultProcessors({ simulatorLatencyMs: deps.config.simulatorLatencyMs, timeoutMs: deps.config.processorTimeoutMs });
  const fees = new FeeService(store.db, clock, partners);
  const references = new ReferenceService({ repository: new ReferenceRepository(store.sql), clock });
  const payments = new PaymentService({ db: store.db, sql: store.sql, clock, ids, log, fees, adapters: processorAdapters, tokens, references });
  const recurringProfiles = new RecurringProfileService({ db: store.db, clock, ids, tokens, processors, fees });
  const billing = new BillingService({ store, clock, ids, log, payments, retryDays: deps.config.billingRetryDays });
  const refundsVoids = new RefundVoidService({ db: store.db, clock, ids, log, processors, adapters: processorAdapters });
  const pendingPayments = new PendingPaymentService({ sql: store.sql, clock, refundsVoids });
  const settlement = new SettlementService({ db: store.db, clock, ids, cutoffMinutes: deps.config.settlementCutoffMinutes, adapters: processorAdapters, processorTimeoutMs: deps.config.processorTimeoutMs });
  const { publicBaseUrl, providerName, providerUrl } = deps.config;
  const payLinks = new PayLinkService({ db: store.db, clock, ids, fees, processors, tokens, site: { publicBaseUrl, providerName, providerUrl } });
  const payLinkResults = new PayLinkResultService({ db: store.db, clock, ids, payments, tokens });
  const payLinkCheckout = new PayLinkCheckoutService({ clock, log, links: payLinks, results: payLinkResults, payments, tokens, fees, voids: refundsVoids, recurring: recurringProfiles });
  const charities = new CharityService(store, { clock });
  const charityImport = new CharityImportService(store, deps.config.databaseUrl);
  const databaseIdentity = new DatabaseIdentityService(store.db);
  const reportStore = deps.reportStore ?? store;
  const reports = new ReportService({
    repository: new ReportRepository({ sql: reportStore.sql, openCursor: reportStore.openCursor?.bind(reportStore), copyOut: reportStore.copyOut?.bind(reportStore) }),
    clock,
    log,
    exportConcurrency: deps.config.reportExportConcurrency,
  });
  return { ...deps, reports, sessions, partners, processors, references, processorAdapters, fees, vault, tokens, gatewaySessions, gatewayUsers, gateway, payments, pendingPayments, refundsVoids, settlement, payLinks, payLinkResults, payLinkCheckout, charities, charityImport, recurringProfiles, billing, databaseIdentity };
}

/** The jobs a server process runs beside the HTTP server. */
export function backgroundJobs(services: Services): BackgroundJob[] {
  return [
    // The purges too: their cut-offs are this process's clock, and a server a day ahead would
    // delete every live session of the database, every server's.
    { name: 'purge expired access tokens', everyMs: 60 * 60 * 1000, needsAgreedClock: true, run: () => services.sessions.purgeExpired() },
    { name: 'purge expired gateway sessions', everyMs: 60 * 60 * 1000, needsAgreedClock: true, run: () => services.gatewaySessions.purgeExpired() },
    { name: 'purge old pay link responseTokens', everyMs: 60 * 60 * 1000, needsAgreedClock: true, run: () => services.payLinkResults.prune() },
    // Closes the settlement batch once the daily cut-off (SETTLEMENT_CUTOFF) has passed on the
    // injected clock; every process runs it, the batch of a cut-off is closed once.
    { name: 'settlement', everyMs: 60 * 1000, needsAgreedClock: true, needsConfirmedDatabase: true, run: () => services.settlement.settleIfCutoffPassed() },
    // Recurring billing (BILLING_WORKER): any number of processes may run it; each bill date is charged once.
    ...(services.config.billingWorker ? [billingJob(services.billing, services.config.billingIntervalMs)] : []),
  ];
}
