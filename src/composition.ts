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
// Issue 30: processor credentials, the simulator's ledger and the Authorize.Net adapter.
import { ProcessorAccountRepository } from './modules/processor-accounts/processor-account-repository.ts';
import { ProcessorAccountService } from './modules/processor-accounts/processor-account-service.ts';
import { ProcessorCredentialStore } from './modules/processor-accounts/processor-credential-store.ts';
import { type SimulatorLedger, SqlSimulatorLedger } from './processors/simulator-ledger.ts';

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
  /** Issue 30: processors with their acquirer's credentials (`payments processors`). */
  processorAccounts: ProcessorAccountService;
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
}

export function createServices(deps: {
  store: Store;
  clock: Clock;
  ids: Ids;
  config: Config;
  log: RootLogger;
  vault?: Vault;
  /** false: the simulator keeps no ledger (and cannot look anything up): `npm run bench -- simulator-ledger` compares. */
  simulatorLedger?: boolean;
}): Services {
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
  // Issue 30: the simulator records what it does (its look-ups read it); Authorize.Net processors' credentials come from the vault.
  const simulatorLedger = deps.simulatorLedger === false ? undefined : new SqlSimulatorLedger({ sql: store.sql, clock, onLost: (count, err) => log.error({ count, errorName: (err as Error)?.name }, "the simulator's ledger could not record its transactions: their look-ups will say they were never made") });
  if (simulatorLedger) drainBeforeClose(store, simulatorLedger);
  const processorAccountRepository = new ProcessorAccountRepository(store.db);
  const processorCredentials = new ProcessorCredentialStore({ repository: processorAccountRepository, tokens, clock });
  const processorAdapters = defaultProcessors({
    simulatorLatencyMs: deps.config.simulatorLatencyMs,
    timeoutMs: deps.config.processorTimeoutMs,
    simulatorLedger,
    authorizeNet: { accounts: processorCredentials, sandboxUrl: deps.config.authorizeNetSandboxUrl },
  });
  const processorAccounts = new ProcessorAccountService({ repository: processorAccountRepository, credentials: processorCredentials, partners, processors, adapters: processorAdapters, clock });
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
  return { ...deps, sessions, partners, processors, references, processorAdapters, processorAccounts, fees, vault, tokens, gatewaySessions, gatewayUsers, gateway, payments, pendingPayments, refundsVoids, settlement, payLinks, payLinkResults, payLinkCheckout, charities, charityImport, recurringProfiles, billing, databaseIdentity };
}

/**
 * Issue 30: the simulator's ledger writes in the background, so the store closes once it has
 * written what it holds (every process closes its store last: the server, the CLI, tests).
 */
function drainBeforeClose(store: Store, ledger: SimulatorLedger): void {
  const close = store.close.bind(store);
  store.close = async () => {
    await ledger.drain();
    await close();
  };
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
