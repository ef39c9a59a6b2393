import type { Clock } from '../clock.ts';
import type { Config } from '../config.ts';
import type { Ids } from '../ids.ts';
import type { Store } from '../store/database.ts';
import { defaultProcessors, type ProcessorRegistry } from '../processors/registry.ts';
import { CharityImportService } from './charity-import.ts';
import { CharityService } from './charities.ts';
import { FeeService } from './fees.ts';
import { GatewayService } from './gateway.ts';
import { GatewaySessionService } from './gateway-sessions.ts';
import { GatewayUserService } from './gateway-users.ts';
import { PartnerService } from './partners.ts';
import { BillingService } from './billing.ts';
import { PaymentService } from './payments.ts';
import { PendingPaymentService } from './pending-payments.ts';
import { PayLinkService } from './paylinks.ts';
import { PayLinkCheckoutService } from './paylinks-checkout.ts';
import { PayLinkResultService } from './paylinks-results.ts';
import { ProcessorService } from './processors.ts';
import { RecurringProfileService } from './recurring-profiles.ts';
import { RefundVoidService } from './refunds-voids.ts';
import { SessionService } from './sessions.ts';
import { SettlementService } from './settlement.ts';
import { TokenService } from './tokens.ts';
import { type Vault, vaultFromConfig } from '../vault/vault.ts';
import { DatabaseIdentityService } from './database-identity.ts';

/** Everything a surface needs, built once per process (or per test). */
export interface Services {
  store: Store;
  clock: Clock;
  ids: Ids;
  config: Config;
  sessions: SessionService;
  partners: PartnerService;
  processors: ProcessorService;
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
}

export function createServices(deps: { store: Store; clock: Clock; ids: Ids; config: Config; vault?: Vault }): Services {
  const { store, clock, ids } = deps;
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
  const payments = new PaymentService({ db: store.db, sql: store.sql, clock, ids, fees, adapters: processorAdapters, tokens });
  const recurringProfiles = new RecurringProfileService({ db: store.db, clock, ids, tokens, processors, fees });
  const billing = new BillingService({ store, clock, ids, payments, retryDays: deps.config.billingRetryDays });
  const refundsVoids = new RefundVoidService({ db: store.db, clock, ids, processors, adapters: processorAdapters });
  const pendingPayments = new PendingPaymentService({ sql: store.sql, clock, refundsVoids });
  const settlement = new SettlementService({ db: store.db, clock, ids, cutoffMinutes: deps.config.settlementCutoffMinutes, adapters: processorAdapters, processorTimeoutMs: deps.config.processorTimeoutMs });
  const { publicBaseUrl, providerName, providerUrl } = deps.config;
  const payLinks = new PayLinkService({ db: store.db, clock, ids, fees, processors, tokens, site: { publicBaseUrl, providerName, providerUrl } });
  const payLinkResults = new PayLinkResultService({ db: store.db, clock, ids, payments, tokens });
  const payLinkCheckout = new PayLinkCheckoutService({ clock, links: payLinks, results: payLinkResults, payments, tokens, fees, recurring: recurringProfiles });
  const charities = new CharityService(store, { clock });
  const charityImport = new CharityImportService(store, deps.config.databaseUrl);
  const databaseIdentity = new DatabaseIdentityService(store.db);
  return { ...deps, sessions, partners, processors, processorAdapters, fees, vault, tokens, gatewaySessions, gatewayUsers, gateway, payments, pendingPayments, refundsVoids, settlement, payLinks, payLinkResults, payLinkCheckout, charities, charityImport, recurringProfiles, billing, databaseIdentity };
}
