import type { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { testConfig } from '../../../src/config.ts';
import { createServices } from '../../../src/composition.ts';
import type { AuthenticatedPartner } from '../../../src/domain/partner.ts';
import { ReportRepository } from '../../../src/modules/reports/report-repository.ts';
import { ReportService, partnerExportSlots } from '../../../src/modules/reports/report-service.ts';
import { ManualClock } from '../../../src/platform/clock.ts';
import type { Store } from '../../../src/platform/database/database.ts';
import { BusyError } from '../../../src/platform/errors.ts';
import { cryptoIds } from '../../../src/platform/ids.ts';
import { createLogger } from '../../../src/platform/logging.ts';
import { seedTestPartner } from '../../helpers/context.ts';
import { insertSyntheticPayments } from '../../helpers/report-data.ts';
import { freshStore } from '../../helpers/store.ts';

/**
 * The export slots of a process: how many one partner may hold, and the deadline on a whole
 * file. An export's stream that nobody reads stays open (backpressure), so it holds its slot
 * as a slow client's would.
 */
let store: Store;
let first: AuthenticatedPartner;
let second: AuthenticatedPartner;

beforeAll(async () => {
  store = await freshStore();
  const services = createServices({ store, clock: new ManualClock(), ids: cryptoIds, config: testConfig(), log: createLogger('silent') });
  const partners: AuthenticatedPartner[] = [];
  for (const name of ['Slots One', 'Slots Two']) {
    const partner = await seedTestPartner(services, name, 'non-profit');
    await insertSyntheticPayments(store.sql, {
      partnerId: partner.ClientId,
      processorId: partner.processorId,
      integrationSourceIds: [partner.integrationSourceId],
      organizationIds: [null],
      count: 20,
      from: new Date('2026-01-01T00:00:00Z'),
      to: new Date('2026-01-02T00:00:00Z'),
      prefix: name.replace(' ', '').toLowerCase(),
    });
    partners.push({ id: partner.ClientId, name: partner.name, kind: partner.kind } as AuthenticatedPartner);
  }
  [first, second] = partners as [AuthenticatedPartner, AuthenticatedPartner];
}, 120_000);
afterAll(async () => {
  await store.close();
});

function reports(options: { exportConcurrency: number; exportMaxMs?: number }) {
  return new ReportService({
    repository: new ReportRepository({ sql: store.sql, openCursor: store.openCursor?.bind(store), copyOut: store.copyOut?.bind(store) }),
    clock: new ManualClock(),
    log: createLogger('silent'),
    ...options,
  });
}

const csv = { filters: [], format: 'csv' };

/**
 * Destroys the stream and waits for its 'close', when the service gives its slot back (`closed`
 * turns true before 'close' is emitted).
 */
async function destroyed(stream: Readable) {
  const closed = new Promise((resolve) => stream.once('close', resolve));
  stream.destroy();
  await closed;
}

describe('export slots', () => {
  it('one partner holds all the slots but one; another partner gets the last', async () => {
    expect([1, 2, 3, 10].map(partnerExportSlots)).toEqual([1, 1, 2, 9]);
    const service = reports({ exportConcurrency: 3 });
    const held = [await service.export(first, { kind: 'sources' }, csv), await service.export(first, { kind: 'sources' }, csv)];
    await expect(service.export(first, { kind: 'sources' }, csv)).rejects.toThrow(new BusyError('You have 2 exports running, as many as one partner may run at once; try again when one has ended.'));
    const other = await service.export(second, { kind: 'sources' }, csv);
    await expect(service.export(second, { kind: 'sources' }, csv)).rejects.toThrow(new BusyError('3 exports are running, as many as run at once; try again shortly.'));
    // An export that ends gives its slot back to its partner.
    await destroyed(held[0]!.stream);
    const again = await service.export(first, { kind: 'sources' }, { ...csv, format: 'excel' });
    for (const file of [held[1]!, other, again]) await destroyed(file.stream);
    // All slots free again: a file read to its end.
    const whole = await service.export(second, { kind: 'sources' }, csv);
    const text = (await whole.stream.toArray()).join('');
    expect(text.trim().split('\r\n')).toHaveLength(21);
  });

  it.each(['csv', 'excel'])('a %s export still open past the deadline is cut off and its slot freed', async (format) => {
    const service = reports({ exportConcurrency: 1, exportMaxMs: 300 });
    const file = await service.export(first, { kind: 'sources' }, { filters: [], format });
    // The HTTP edge listens for the stream's error (it ends the response incomplete).
    const errors: Error[] = [];
    file.stream.on('error', (err) => errors.push(err));
    const closed = new Promise((resolve) => file.stream.once('close', resolve));
    await expect(service.export(second, { kind: 'sources' }, csv)).rejects.toThrow(BusyError);
    const started = Date.now();
    await closed;
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(file.stream.readableEnded).toBe(false);
    expect(errors.map((e) => e.message)).toEqual(['the export ran past its deadline (300 ms)']);
    const next = await service.export(second, { kind: 'sources' }, csv);
    expect((await next.stream.toArray()).join('').trim().split('\r\n')).toHaveLength(21);
  });
});
