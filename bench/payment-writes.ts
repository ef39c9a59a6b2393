/**
 * npm run bench -- payment-writes        (PostgreSQL: DATABASE_URL's server, or the local one)
 *
 * Not a target: why the payments benchmark's 40 % target is out of reach of the payment's own
 * writes. A payment's two statements (its pending row with its lines, then the processor's answer)
 * are replayed straight against PostgreSQL, with no HTTP and no service code, next to the baseline
 * route's one INSERT; then again after each schema change that could make them cheaper, each added
 * to the previous ones, on a throw-away database. docs/decisions.md ("The payment's two writes set
 * a ceiling") has the figures and why none of the changes was kept.
 */
import { withThrowawayDatabase } from './lib/database.ts';
import { baselineInsert, capturePayment, paymentReplay, rate } from './lib/payment-writes-alone.ts';
import { openPostgres } from '../src/store/database.ts';
import { migrate } from '../src/store/migrate.ts';

const CLIENTS = 32;

/** Each step is applied on top of the ones before it. */
const STEPS: { name: string; sql: (database: string) => string }[] = [
  { name: 'as migrated', sql: () => '' },
  { name: 'no foreign key from payment_lines', sql: () => 'ALTER TABLE payment_lines DROP CONSTRAINT payment_lines_payment_id_fkey' },
  { name: 'fillfactor 70', sql: () => 'ALTER TABLE payments SET (fillfactor = 70)' },
  {
    // Every index on a column the completion changes: what a heap-only (HOT) update needs.
    name: 'HOT completions',
    sql: () =>
      'DROP INDEX payments_transaction_id, payments_authorized, payments_pending, payments_pay_link_charged, payments_tran_id_once, payments_recurring_bill_once',
  },
  { name: 'synchronous_commit off', sql: (database) => `ALTER DATABASE ${database} SET synchronous_commit = off` },
];

export async function run(options: { seconds: number }) {
  return withThrowawayDatabase('payment_writes', async (url) => {
    const setup = openPostgres(url, 2);
    try {
      await migrate(setup);
      await setup.sql.exec('CREATE TABLE bench_inserts (id uuid PRIMARY KEY, partner_id uuid NOT NULL, payload jsonb NOT NULL, created_at timestamptz NOT NULL)');
    } finally {
      await setup.close();
    }
    const captured = await capturePayment(url);
    const steps = [];
    for (const step of STEPS) {
      const ddl = step.sql(new URL(url).pathname.slice(1));
      // A new pool for each step: a database setting applies to new connections.
      const store = openPostgres(url, 20);
      try {
        if (ddl) await store.sql.exec(ddl);
        const payment = paymentReplay(store, captured);
        const baseline = baselineInsert(store, captured.partnerId);
        await rate(CLIENTS, 1, payment);
        const [hotBefore] = await store.sql.query<{ hot: string; all: string }>("SELECT n_tup_hot_upd AS hot, n_tup_upd AS all FROM pg_stat_user_tables WHERE relname = 'payments'");
        const baselinePerSec = await rate(CLIENTS, options.seconds, baseline);
        const paymentPerSec = await rate(CLIENTS, options.seconds, payment);
        // Table statistics reach the view within the stats interval (0.5 s).
        await new Promise((resolve) => setTimeout(resolve, 1000));
        const [hotAfter] = await store.sql.query<{ hot: string; all: string }>("SELECT n_tup_hot_upd AS hot, n_tup_upd AS all FROM pg_stat_user_tables WHERE relname = 'payments'");
        const updates = Number(hotAfter!.all) - Number(hotBefore!.all);
        steps.push({
          step: step.name,
          baselineInsertPerSec: baselinePerSec,
          paymentWritesPerSec: paymentPerSec,
          ratio: Number((paymentPerSec / baselinePerSec).toFixed(3)),
          hotShareOfCompletions: updates ? Number(((Number(hotAfter!.hot) - Number(hotBefore!.hot)) / updates).toFixed(2)) : 0,
        });
      } finally {
        await store.close();
      }
    }
    return { clients: CLIENTS, note: 'not a target: the payment writes alone, after each cumulative schema change', steps };
  });
}
