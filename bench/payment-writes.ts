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
import { openPostgres } from '../src/platform/database/database.ts';
import { migrate } from '../src/platform/database/migrate.ts';

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
    const hotUpdates = async () => {
      const stats = openPostgres(url, 1);
      try {
        const [row] = await stats.sql.query<{ hot: string; all: string }>("SELECT n_tup_hot_upd AS hot, n_tup_upd AS all FROM pg_stat_user_tables WHERE relname = 'payments'");
        return { hot: Number(row!.hot), all: Number(row!.all) };
      } finally {
        await stats.close();
      }
    };
    const steps = [];
    for (const step of STEPS) {
      const ddl = step.sql(new URL(url).pathname.slice(1));
      // On a connection of its own, before the pool opens: a database setting applies to the
      // connections made after it.
      if (ddl) {
        const admin = openPostgres(url, 1);
        try {
          await admin.sql.exec(ddl);
        } finally {
          await admin.close();
        }
      }
      const before = await hotUpdates();
      const store = openPostgres(url, 20);
      let baselinePerSec: number;
      let paymentPerSec: number;
      try {
        const payment = paymentReplay(store, captured);
        const baseline = baselineInsert(store, captured.partnerId);
        await rate(CLIENTS, 1, payment);
        baselinePerSec = await rate(CLIENTS, options.seconds, baseline);
        paymentPerSec = await rate(CLIENTS, options.seconds, payment);
      } finally {
        // Backends report their table statistics when they end.
        await store.close();
      }
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const after = await hotUpdates();
      const updates = after.all - before.all;
      steps.push({
        step: step.name,
        baselineInsertPerSec: baselinePerSec,
        paymentWritesPerSec: paymentPerSec,
        ratio: Number((paymentPerSec / baselinePerSec).toFixed(3)),
        hotShareOfCompletions: updates ? Number(((after.hot - before.hot) / updates).toFixed(2)) : 0,
      });
    }
    return { clients: CLIENTS, note: 'not a target: the payment writes alone, after each cumulative schema change', steps };
  });
}
