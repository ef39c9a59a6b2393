import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../src/platform/clock.ts';
import { testConfig } from '../../src/config.ts';
import { cryptoIds } from '../../src/platform/ids.ts';
import type { SaleResult } from '../../src/processors/processor.ts';
import { createServices } from '../../src/composition.ts';
import { openStore } from '../../src/platform/database/database.ts';
import { cardPaymentInput, seedTestPartner } from '../helpers/context.ts';
import { runCliProcess } from '../helpers/process.ts';
import { processStore } from '../helpers/store.ts';
import { testLogger } from '../helpers/logger.ts';

/** `npx payments pending ...` as processes, on this run's kind of store. */
let env: Record<string, string>;
let cleanup: () => Promise<void>;
let stranded: string;

const openIt = () => openStore({ dataDir: env.DATA_DIR!, databaseUrl: env.DATABASE_URL, databasePoolSize: 2 });

beforeAll(async () => {
  ({ env, cleanup } = await processStore('pending'));
  // A payment made last January whose processor never answered (the process stopped while asking).
  const store = await openIt();
  try {
    const services = createServices({ log: testLogger(), store, clock: new ManualClock('2026-01-10T08:00:00.000Z'), ids: cryptoIds, config: testConfig() });
    const partner = await seedTestPartner(services, 'Pending CLI partner', 'non-profit');
    let asked!: () => void;
    const processorAsked = new Promise<void>((r) => (asked = r));
    services.processorAdapters.get('simulator').sale = () => {
      asked();
      return new Promise<SaleResult>(() => {});
    };
    void services.payments.payCard(
      { id: partner.ClientId, name: partner.name, kind: partner.kind },
      cardPaymentInput(2500, { tranId: 'cli-stranded' }),
    );
    await processorAsked;
    [{ id: stranded }] = (await store.sql.query<{ id: string }>("SELECT id FROM payments WHERE tran_id = 'cli-stranded'")) as [{ id: string }];
  } finally {
    await store.close();
  }
});
afterAll(() => cleanup());

const cli = (...args: string[]) => runCliProcess(['pending', ...args], env);

// Each command is a process that opens the store (PGlite: a second or more, longer under load).
describe('payments pending', { timeout: 180_000 }, () => {
  it('lists a payment whose outcome is unknown, with exit code 3 for monitoring', async () => {
    const res = await cli('list');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(3);
    expect(res.stdout).toContain('Pending for 15 minutes or more');
    expect(res.stdout).toContain('1 payment(s) (reference at the processor: the PaymentGuid):');
    expect(res.stdout).toContain(stranded);
    expect(res.stdout).toMatch(/card 25\.00 USD {2}Pending CLI partner via .* \(simulator\) {2}TranId cli-stranded/);
    const json = await cli('list', '--json', '--older-than', '60');
    expect(JSON.parse(json.stdout)).toEqual({ payments: [expect.objectContaining({ paymentGuid: stranded, amountCents: 2500, createdAt: '2026-01-10T08:00:00.000Z' })], refundsAndVoids: [] });
  });

  it('refuses an incomplete or contradictory resolution before opening the store', async () => {
    const none = await cli('resolve', stranded);
    expect(none.code).toBe(2);
    expect(none.stderr).toMatch(/one of --approved, --declined, --not-processed, --voided/);
    expect((await cli('resolve', stranded, '--voided', '--auth-code', 'A1')).code).toBe(2);
    const noId = await cli('resolve', stranded, '--approved');
    expect(noId.code).toBe(2);
    expect(noId.stderr).toMatch(/--transaction-id/);
    expect((await cli('resolve', stranded, '--declined', '--transaction-id', 'X1')).code).toBe(2);
    // Two outcomes: said so (was the "one of" message for none, which read as if none was given).
    const two = await cli('resolve', stranded, '--declined', '--not-processed');
    expect(two.code).toBe(2);
    expect(two.stderr).toMatch(/^error: give only one of --approved, --declined, --not-processed, --voided \(got --declined and --not-processed\)\n/);
    expect((await cli('list', '--older-than', 'soon')).code).toBe(2);
  });

  it("records the processor's approval; the payment is then neither pending nor resolvable again", async () => {
    const res = await cli('resolve', stranded, '--approved', '--transaction-id', 'BANK-0001', '--auth-code', 'A1B2C3');
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain(`Payment ${stranded} recorded as approved; the payment is now PaymentResult 3, ProcessStatus 2.`);
    const store = await openIt();
    try {
      expect(await store.sql.query('SELECT payment_result, process_status, transaction_id, auth_code FROM payments WHERE id = $1', [stranded])).toEqual([
        { payment_result: 3, process_status: 2, transaction_id: 'BANK-0001', auth_code: 'A1B2C3' },
      ]);
    } finally {
      await store.close();
    }
    const list = await cli('list');
    expect(list.code).toBe(0);
    expect(list.stdout).toContain('Nothing has been pending for 15 minutes or more.');
    const again = await cli('resolve', stranded, '--not-processed');
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/is not pending/);
  });
});
