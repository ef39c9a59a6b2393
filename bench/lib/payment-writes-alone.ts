/**
 * The ceiling the database sets: a payment's own two statements (the pending row with its line,
 * then the processor's answer), replayed straight against PostgreSQL with no HTTP and no service
 * code, next to the baseline route's one INSERT replayed the same way. Not a target: it says how
 * much of the payment/baseline gap the service could still close and how much is the writes'.
 */
import { randomUUID } from 'node:crypto';
import { systemClock } from '../../src/platform/clock.ts';
import { loadConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import { createServices } from '../../src/composition.ts';
import { openPostgres, type SqlClient } from '../../src/platform/database/database.ts';
import { seedTestPartner } from './seed.ts';
import { createLogger } from '../../src/platform/logging.ts';

interface Statement {
  text: string;
  params: unknown[];
}

/** One approved card payment made through the payment service, with the two statements it wrote. */
export async function capturePayment(url: string) {
  const store = openPostgres(url, 2);
  const captured: Statement[] = [];
  const sql: SqlClient = {
    exec: store.sql.exec,
    query: async (text, params, options) => {
      // The simulator's own record (its ledger, issue 30) is the processor's write, not the payment's.
      if (!text.startsWith('INSERT INTO simulator_ledger')) captured.push({ text, params: params ?? [] });
      return store.sql.query(text, params, options);
    },
  };
  // The services' store: closing it first writes what the simulator's ledger still holds.
  const servicesStore = { ...store, sql };
  try {
    const config = { ...loadConfig(), databaseUrl: url, logLevel: 'warn' };
    const services = createServices({ log: createLogger('warn'), store: servicesStore, clock: systemClock, ids: cryptoIds, config });
    const partner = await seedTestPartner(services, `Writes-alone partner ${Date.now()}`, 'non-profit');
    const auth = { id: partner.ClientId, name: partner.name, kind: partner.kind };
    const pay = (tranId: string) =>
      services.payments.payCard(auth, {
        cardNum: '4242424242424242', expMonth: '12', expYear: '35', cvNum: '123', nameOnCard: 'Bench Payer', email: 'payer@example.org',
        ipAddress: '203.0.113.9', zip: '12345', street: '1 Main St', tranId,
        lines: [{ transactionSourceGroupId: 1, amountCents: 2500, payFee: true, tipCents: 0, taxCents: 0 }],
      });
    // The first payment also reads the partner's references and fee contract (then cached).
    await pay(`writes-${randomUUID()}`);
    const tranId = `writes-${randomUUID()}`;
    captured.length = 0;
    const { payment } = await pay(tranId);
    const insert = captured.find((s) => s.text.startsWith('WITH p AS (INSERT INTO payments'));
    const update = captured.find((s) => s.text.startsWith('UPDATE payments'));
    if (!insert || !update || captured.length !== 2) throw new Error(`expected a payment's two statements, saw ${captured.length}`);
    return { partnerId: auth.id, payment, tranId, insert, update };
  } finally {
    await servicesStore.close();
  }
}

/** Runs `op` from `clients` concurrent loops for `seconds`; operations per second. */
export async function rate(clients: number, seconds: number, op: () => Promise<unknown>): Promise<number> {
  let done = 0;
  let failed: unknown;
  const end = Date.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      // One failure stops every loop, so that nothing is left running against the database.
      while (Date.now() < end && failed === undefined) {
        try {
          await op();
          done++;
        } catch (err) {
          failed ??= err;
        }
      }
    }),
  );
  if (failed !== undefined) throw failed;
  return Math.round(done / seconds);
}

/** Writes one new payment the way the captured one was written: new ids, the same statements. */
export function paymentReplay(store: { sql: SqlClient }, captured: Awaited<ReturnType<typeof capturePayment>>): () => Promise<void> {
  const { payment, tranId, insert, update } = captured;
  // Each replay is a new payment: new id, TranId and processor transaction id (unique indexes).
  const idAt = insert.params.indexOf(payment.id);
  const tranAt = insert.params.indexOf(tranId);
  const transactionAt = update.params.indexOf(payment.transactionId);
  if (idAt < 0 || tranAt < 0 || transactionAt < 0 || update.params[0] !== payment.id) throw new Error('cannot find the ids to vary in the captured statements');
  const prepared = { prepare: true };
  return async () => {
    const id = randomUUID();
    const params = [...insert.params];
    params[idAt] = id;
    params[tranAt] = `writes-${id}`;
    params[params.length - 1] = String(params[params.length - 1]).replaceAll(payment.id, id);
    await store.sql.query(insert.text, params, prepared);
    const answer = [...update.params];
    answer[0] = id;
    answer[transactionAt] = `writes-${id}`;
    await store.sql.query(update.text, answer, prepared);
  };
}

/** The baseline route's statement, as bench/lib/serve.ts runs it. */
export function baselineInsert(store: { sql: SqlClient }, partnerId: string): () => Promise<unknown> {
  return () =>
    store.sql.query('INSERT INTO bench_inserts (id, partner_id, payload, created_at) VALUES ($1, $2, $3, now())', [randomUUID(), partnerId, '{"n":1}']);
}

export async function measureWritesAlone(url: string, options: { clients: number; seconds: number }) {
  const captured = await capturePayment(url);
  // The service's own PostgreSQL access: the same pool settings and prepared statements.
  const store = openPostgres(url, 20);
  const writePayment = paymentReplay(store, captured);
  const writeBaseline = baselineInsert(store, captured.partnerId);
  try {
    await rate(options.clients, 1, writePayment);
    const baselineInsert = await rate(options.clients, options.seconds, writeBaseline);
    const paymentWrites = await rate(options.clients, options.seconds, writePayment);
    return { clients: options.clients, baselineInsertPerSec: baselineInsert, paymentWritesPerSec: paymentWrites, ratio: Number((paymentWrites / baselineInsert).toFixed(3)) };
  } finally {
    await store.close();
  }
}
