import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testDatabaseUrl } from '../helpers/database-url.ts';
import { type RunningService, runCliProcess, startService } from '../helpers/process.ts';
import { freshDatabase } from '../helpers/store.ts';

/**
 * The service's database connections are cut (pg_terminate_backend) every quarter second while
 * payments, voids and refunds are made. No answer is a 500; an answer that is not a success
 * names the payment and never invites a new attempt when the processor was asked; once the cuts
 * stop, nothing stays pending beyond the resolution's next runs; and every charge the simulator
 * made has exactly one payment, recorded as charged. PostgreSQL only: PGlite has no connections
 * to cut.
 */
const url = testDatabaseUrl();
const CLIENTS = 8;
const CUT_EVERY_MS = 250;
const LOAD_MS = 5_000;

interface Answer {
  status: number;
  body: Record<string, unknown>;
  /** What the request was about: the TranId of a payment, the PaymentGuid of a void or refund. */
  about: string;
}

describe.runIf(url)('cut database connections', { timeout: 600_000 }, () => {
  let db: { url: string; drop(): Promise<void> };
  let dataDir: string;
  let service: RunningService;
  let admin: pg.Client;
  let token: string;
  let base: string;
  /** Connections cut while they were running a statement or inside a transaction. */
  let busyCuts = 0;

  beforeAll(async () => {
    db = await freshDatabase(url!);
    dataDir = mkdtempSync(join(tmpdir(), 'payments-faults-'));
    service = await startService({
      DATABASE_URL: db.url,
      DATA_DIR: dataDir,
      DEMO: 'on',
      SIMULATOR_LATENCY_MS: '30',
      PROCESSOR_TIMEOUT: '2',
      BILLING_WORKER: 'off',
      DATABASE_POOL_SIZE: '6',
      LOG_LEVEL: 'warn',
    });
    base = `http://127.0.0.1:${service.port}`;
    admin = new pg.Client({ connectionString: db.url });
    await admin.connect();
    const saved = JSON.parse(readFileSync(join(dataDir, 'demo-credentials.json'), 'utf8')) as { partners: { kind: string; ClientId: string; ClientSecret: string }[] };
    const partner = saved.partners.find((p) => p.kind === 'non-profit')!;
    const session = await post('/api/ClientSession', { ClientId: partner.ClientId, ClientSecret: partner.ClientSecret });
    token = session.body.Token as string;
  }, 180_000);

  afterAll(async () => {
    await admin?.end();
    await service?.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  async function post(path: string, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    for (;;) {
      try {
        const res = await fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...(token ? { AccessToken: token } : {}) }, body: JSON.stringify(body) });
        const text = await res.text();
        return { status: res.status, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
      } catch (err) {
        // A connection of this client's that the server closed: the request was not read.
        if ((err as { cause?: { code?: string } }).cause?.code !== 'ECONNRESET') throw err;
      }
    }
  }

  /** Runs `requests` with CLIENTS at a time while every connection of the service is cut every quarter second. */
  async function underCuts<T>(items: T[], request: (item: T) => Promise<Answer>): Promise<Answer[]> {
    const cutter = setInterval(() => {
      admin
        .query<{ busy: string }>(
          `SELECT count(*) FILTER (WHERE state <> 'idle') AS busy FROM (
             SELECT state, pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()) cut`,
        )
        .then(({ rows }) => (busyCuts += Number(rows[0]!.busy)))
        .catch(() => {});
    }, CUT_EVERY_MS);
    const answers: Answer[] = [];
    let next = 0;
    try {
      await Promise.all(
        Array.from({ length: CLIENTS }, async () => {
          while (next < items.length) answers.push(await request(items[next++]!));
        }),
      );
    } finally {
      clearInterval(cutter);
    }
    return answers;
  }

  /** Waits until no payment, refund or void is pending (the outcomes kept for the database are written every 2 s, look-ups every 30 s). */
  async function settledDown(): Promise<{ payments: number; adjustments: number }> {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const { rows } = await admin.query<{ payments: string; adjustments: string }>(
        "SELECT (SELECT count(*) FROM payments WHERE payment_result IN (1, 2)) AS payments, (SELECT count(*) FROM payment_adjustments WHERE status = 'pending') AS adjustments",
      );
      const counts = { payments: Number(rows[0]!.payments), adjustments: Number(rows[0]!.adjustments) };
      if ((counts.payments === 0 && counts.adjustments === 0) || Date.now() > deadline) return counts;
      await new Promise((r) => setTimeout(r, 1_000));
    }
  }

  const card = (tranId: string) => ({
    CardNum: '4242424242424242', ExpMonth: '12', ExpYear: '35', CVNum: '123', NameOnCard: 'Fault Test', Email: 'fault@example.org',
    IpAddress: '203.0.113.9', Street: '1 Main St', Zip: '12345', TranId: tranId,
    Transactions: [{ TransactionSourceGroupId: '1', Amount: '10.00' }],
  });

  /** The simulator's approved entries (its own records), and the payments and refunds/voids they belong to. */
  async function ledger() {
    const { rows } = await admin.query<{ reference: string; kind: string; approved: boolean; payment_result: number | null; status: string | null }>(`
      SELECT l.reference, l.kind, l.approved, p.payment_result, a.status
        FROM simulator_ledger l
        LEFT JOIN payments p ON l.kind = 'sale' AND p.id::text = l.reference
        LEFT JOIN payment_adjustments a ON l.kind <> 'sale' AND a.id::text = l.reference`);
    return rows;
  }

  /** Whether the processor was asked for anything about these payments (by TranId) or their refunds and voids. */
  async function processorAsked(tranIds: string[], paymentGuids: string[]): Promise<boolean> {
    const { rows } = await admin.query(
      `SELECT 1 FROM simulator_ledger l WHERE l.reference IN (SELECT id::text FROM payments WHERE tran_id = ANY($1::text[]))
          OR l.reference IN (SELECT id::text FROM payment_adjustments WHERE payment_id = ANY($2::uuid[])) LIMIT 1`,
      [tranIds, paymentGuids],
    );
    return rows.length > 0;
  }

  it('never answers 500 nor "try again" after the processor was asked, and leaves nothing pending', async () => {
    // Payments.
    const tranIds: string[] = [];
    const started = Date.now();
    const payments: Answer[] = [];
    while (Date.now() - started < LOAD_MS) {
      const batch = Array.from({ length: 40 }, () => `fault-${randomUUID()}`);
      tranIds.push(...batch);
      payments.push(...(await underCuts(batch, async (tranId) => ({ ...(await post('/api/payment', card(tranId))), about: tranId }))));
    }
    expect(payments.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
    for (const a of payments) {
      if (a.status === 201) {
        expect(a.body.PaymentGuid, JSON.stringify(a)).toBeTruthy();
        if (a.body.PaymentResult === 2) expect(a.body.Message, JSON.stringify(a)).toContain('Do not pay again');
      } else {
        expect(a.status, JSON.stringify(a)).toBe(503);
        if (a.body.PaymentGuid) expect(a.body.detail).toContain('do not pay again');
        // "Try again" only when the processor was not asked.
        else expect(await processorAsked([a.about], []), JSON.stringify(a)).toBe(false);
      }
    }
    expect(await settledDown()).toEqual({ payments: 0, adjustments: 0 });

    // Voids of half the approved payments, refunds of the others once settled.
    const { rows: approved } = await admin.query<{ id: string }>('SELECT id FROM payments WHERE payment_result = 3 ORDER BY created_at');
    const toVoid = approved.filter((_, i) => i % 2 === 0).map((r) => r.id);
    const toRefund = approved.filter((_, i) => i % 2 === 1).map((r) => r.id);
    const voids = await underCuts(toVoid, async (guid) => ({ ...(await post('/api/void', { PaymentGuid: guid, Reason: 'fault test' })), about: guid }));
    expect(await settledDown()).toEqual({ payments: 0, adjustments: 0 });
    const settle = await runCliProcess(['settle', '--json'], { DATABASE_URL: db.url, DATA_DIR: dataDir });
    expect(settle.code, settle.stderr).toBe(0);
    const refunds = await underCuts(toRefund, async (guid) => ({ ...(await post('/api/refund', { PaymentGuid: guid, Reason: 'fault test' })), about: guid }));
    expect(await settledDown()).toEqual({ payments: 0, adjustments: 0 });
    for (const a of [...voids, ...refunds]) {
      expect(a.status, JSON.stringify(a)).not.toBe(500);
      if (a.status === 200) {
        if (a.body.Successful !== true && a.body.ResponseCode === '99') expect(a.body.Message, JSON.stringify(a)).toMatch(/not sent|could not be reached|Do not send it again/);
      } else {
        expect(a.status, JSON.stringify(a)).toBe(503);
        if (!a.body.PaymentGuid) expect(await processorAsked([], [a.about]), JSON.stringify(a)).toBe(false);
      }
    }

    // Every charge, void and refund the simulator made is recorded as made, once.
    const entries = await ledger();
    expect(entries.length).toBeGreaterThan(0);
    for (const e of entries.filter((x) => x.approved)) {
      if (e.kind === 'sale') expect([3, 5, 6], JSON.stringify(e)).toContain(e.payment_result);
      else expect(e.status, JSON.stringify(e)).toBe('approved');
    }
    const { rows: charged } = await admin.query<{ n: string }>("SELECT count(*) AS n FROM simulator_ledger WHERE kind = 'sale' AND approved");
    const { rows: recorded } = await admin.query<{ n: string }>('SELECT count(*) AS n FROM payments WHERE payment_result IN (3, 5, 6) AND tran_id LIKE $1', ['fault-%']);
    expect(Number(recorded[0]!.n)).toBe(Number(charged[0]!.n));
    // Something was cut while it mattered: connections were cut in the middle of their work (how
    // many answers show it depends on where each cut fell, and the service may hide it well).
    expect(busyCuts).toBeGreaterThan(0);
  });
});
