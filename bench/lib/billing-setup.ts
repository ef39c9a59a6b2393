import pg from 'pg';
import { systemClock } from '../../src/platform/clock.ts';
import { type Config, loadConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices, type Services } from '../../src/composition.ts';
import { openPostgres, type Store } from '../../src/platform/database/database.ts';
import { migrate } from '../../src/platform/database/migrate.ts';
import { seedTestPartner } from './seed.ts';
import { createLogger } from '../../src/platform/logging.ts';

/** The PostgreSQL server of the billing benchmark: BENCH_DATABASE_URL, DATABASE_URL, or the local one. */
export function billingBenchServer(): string {
  return process.env.BENCH_DATABASE_URL || process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/postgres';
}

/** A new, empty database on that server; `drop` removes it. */
export async function throwawayDatabase(name: string): Promise<{ url: string; drop(): Promise<void> }> {
  const server = billingBenchServer();
  const database = `payments_bench_${name}_${process.pid}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${database}`);
  await admin.end();
  const url = new URL(server);
  url.pathname = `/${database}`;
  return {
    url: url.toString(),
    async drop() {
      const c = new pg.Client({ connectionString: server });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => {});
      await c.end();
    },
  };
}

/** The configuration of the benchmark's processes: the database, its vault key, quiet logs. */
export function billingBenchConfig(databaseUrl: string, vaultKey: string, poolSize: number): Config {
  return { ...loadConfig({ DATA_DIR: '/nonexistent', DEMO: 'off', VAULT_KEY: vaultKey }), databaseUrl, databasePoolSize: poolSize, logLevel: 'warn', simulatorLatencyMs: 0 };
}

export async function openBenchServices(config: Config): Promise<{ store: Store; services: Services }> {
  const store = openPostgres(config.databaseUrl!, config.databasePoolSize);
  await migrate(store);
  return { store, services: createServices({ log: createLogger('warn'), store, clock: systemClock, ids: cryptoIds, config }) };
}

/**
 * A non-profit partner with `tokens` stored cards, and nothing due yet. Profiles are added in
 * bulk by `addDueProfiles` (creating 10,000 through the API would measure the API, not billing).
 */
export async function seedBillingPartner(services: Services, tokens: number) {
  const partner = await seedTestPartner(services, `Billing Bench ${Date.now()}`, 'non-profit');
  const tokenIds: string[] = [];
  for (let i = 0; i < tokens; i++) {
    const t = await services.tokens.tokenizeCard(partner.ClientId, { cardNumber: '4242424242424242', expMonth: '12', expYear: '35', firstName: 'Bench', lastName: `Donor ${i}`, source: 'api' });
    tokenIds.push(t.id);
  }
  return { partner, tokenIds };
}

/**
 * `count` active monthly profiles due on `billDate`, as POST /api/recurringProfile makes them
 * (the demo contract's rates kept, group 1), half of them with PayFee.
 */
export async function addDueProfiles(store: Store, seed: { partner: { ClientId: string; processorId: string }; tokenIds: string[] }, count: number, billDate: string) {
  await store.sql.query(
    `INSERT INTO recurring_profiles (id, partner_id, token_id, processor_id, status, billing_frequency, anchor_day, start_date,
                                     next_bill_date, next_attempt_on, failed_attempts, amount_cents, pay_fee, transaction_source_group_id,
                                     fee_commission_rate, fee_card_rate, fees_taken_at, created_at, updated_at)
     SELECT gen_random_uuid(), $1, ($2::uuid[])[1 + g % array_length($2::uuid[], 1)], $3, 'active', 'Monthly',
            extract(day FROM $4::date)::smallint, $4::date - 30, $4::date, $4::date, 0, 1000 + (g % 5000), g % 2 = 0, 1,
            '5', '2.9', now(), now(), now()
       FROM generate_series(1, $5::int) g`,
    [seed.partner.ClientId, seed.tokenIds, seed.partner.processorId, billDate, count],
  );
}
